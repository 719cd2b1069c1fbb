"""Check one day of orders_daily against its landing file, order id by order id.

    python check_day.py 2026-09-16     # checks day 2026-09-15, the day run 2026-09-16 loads

Prints `ok ...` (exit 0) or a line starting with `PROBLEM` that says what is wrong (exit 1).
"""
import argparse
from collections import Counter

from delta_session import (ToolkitError, add_verbose, as_date, day_file, day_loaded_by, delta_spark,
                           orders_table, parse_date, run_main)
from load_day import read_day_file


def stored_ids(spark, first_day, last_day) -> dict:
    """The order ids the table holds for each day from first_day to last_day, in one scan."""
    from pyspark.sql import functions as F
    rows = (orders_table(spark)
            .where(F.col("order_date").between(F.lit(first_day), F.lit(last_day)))
            .select("order_date", "order_id")
            .collect())
    ids = {}
    for row in rows:
        ids.setdefault(row.order_date, []).append(row.order_id)
    return ids


def file_ids(day):
    """The day file's order ids, or a short reason why there are none ('no file', a bad line)."""
    if not day_file(day).exists():
        return None, "no file"
    try:
        return read_day_file(day).order_ids, ""
    except ToolkitError as error:
        return None, f"bad file ({error})"


def listed(ids) -> str:
    ids = sorted(ids)
    return ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")


def compare_day(day, ids_in_file, why_no_ids: str, ids_in_table: list):
    """(ok, message) for one day: the table's ids against the file's."""
    rows = len(ids_in_table)
    if ids_in_file is None:
        return False, f"PROBLEM {day}: {why_no_ids}, {rows} rows"
    in_table = Counter(ids_in_table)
    missing = set(ids_in_file) - set(in_table)
    extra = set(in_table) - set(ids_in_file)
    twice = [order_id for order_id, count in in_table.items() if count > 1]
    head = f"{rows} rows for the file's {len(ids_in_file)} orders"
    if not (missing or extra or twice):
        return True, f"ok {day}: {head}, 0 missing"
    details = [f"{len(missing)} missing ({listed(missing)})" if missing else "",
               f"{len(extra)} not in the file ({listed(extra)})" if extra else "",
               f"{len(twice)} duplicated ({listed(twice)})" if twice else ""]
    return False, f"PROBLEM {day}: " + ", ".join([head] + [d for d in details if d])


def check_day(spark, run_date):
    """Compare the day run_date loads with its file; return (ok, message)."""
    day = day_loaded_by(as_date(run_date))
    ids_in_file, why = file_ids(day)
    return compare_day(day, ids_in_file, why, stored_ids(spark, day, day).get(day, []))


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_date", type=parse_date, help="run date D (YYYY-MM-DD); checks day D-1")
    add_verbose(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        ok, message = check_day(delta_spark("check_day"), args.run_date)
        print(message)
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
