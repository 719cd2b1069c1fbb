"""Check every calendar day of a month of orders_daily against its landing file.

    python check_month.py 2026-09

Every day counts, also one with no file and no rows. Prints a PROBLEM line per day that does not
match and a closing line; exit 0 when all days match, 1 otherwise.
"""
import argparse
import calendar
import datetime as dt

from delta_session import add_verbose, as_date, delta_spark, parse_month, run_main
from check_day import compare_day, file_ids, stored_ids


def month_days(month: dt.date) -> list:
    last = calendar.monthrange(month.year, month.month)[1]
    return [month.replace(day=number) for number in range(1, last + 1)]


def check_month(spark, month) -> tuple:
    """Compare every day of month with its file; return (ok, lines to print)."""
    month = month.replace(day=1) if isinstance(month, dt.date) else as_date(f"{month}-01")
    days = month_days(month)
    in_table = stored_ids(spark, days[0], days[-1])
    results = [compare_day(day, *file_ids(day), in_table.get(day, [])) for day in days]
    lines = [message for ok, message in results if not ok]
    bad = len(lines)
    label = month.strftime("%Y-%m")
    if bad:
        lines.append(f"PROBLEM {label}: {bad} of {len(days)} days do not match")
    else:
        orders = sum(len(ids) for ids in in_table.values())
        lines.append(f"ok {label}: all {len(days)} days match their files, {orders} orders")
    return bad == 0, lines


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("month", type=parse_month, help="the month to check, YYYY-MM")
    add_verbose(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        ok, lines = check_month(delta_spark("check_month"), args.month)
        print("\n".join(lines))
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
