"""Check every calendar day of a month of orders_daily against its landing file.

    python check_month.py 2026-09

    python check_month.py 2026-09 --json     # every day's state and the lines, as one JSON object

Every day counts, also one with no file and no rows. Draws the month as a calendar with each day's
state (truth/verdict.py says what each means), then a PROBLEM line per day that does not match its file
or whose file changed since its load, and a closing line; exit 0 when all days match, 1 otherwise.
A day whose run date is after today is `future`, not a problem: on 2 December, December passes when
1 December matches. Today is the real date unless --today says otherwise, read in main only: the one
place the toolkit reads a clock.
"""
import argparse
import calendar
import datetime as dt
import json
import sys

from delta_session import delta_spark, orders_table
from shoptoolkit.run_args import add_root, add_verbose, as_date, parse_date, parse_month, run_main
from shoptoolkit.truth import day_states, draw_calendar, wants_colour
from shoptoolkit.truth.verdict import month_verdict as verdict_of_month


def month_days(month: dt.date) -> list:
    last = calendar.monthrange(month.year, month.month)[1]
    return [month.replace(day=number) for number in range(1, last + 1)]


def first_of(month) -> dt.date:
    return month.replace(day=1) if isinstance(month, dt.date) else as_date(f"{month}-01")


def month_states(spark, month, today=None) -> list:
    """The DayState of every day of month (day_truth.py); today=None marks no day as future."""
    orders_table(spark)  # a clear error when there is no table
    days = month_days(first_of(month))
    return day_states(spark, days[0], days[-1], today)


def check_month(spark, month, today=None) -> tuple:
    """Compare every day of month with its file; return (ok, lines to print)."""
    return month_verdict(month, month_states(spark, month, today))


def month_verdict(month, states) -> tuple:
    """(ok, PROBLEM lines and the closing line) for a month's day states, in verdict.py's words."""
    return verdict_of_month(first_of(month).strftime("%Y-%m"), states)


def month_json(month, today, states, ok: bool, lines: list) -> str:
    return json.dumps({"month": first_of(month).strftime("%Y-%m"), "today": str(today), "ok": ok,
                       "days": [found.as_json() for found in states], "lines": lines}, sort_keys=True)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("month", type=parse_month, help="the month to check, YYYY-MM")
    parser.add_argument("--today", type=parse_date,
                        help="days whose run date is after it are future (default: the real date)")
    parser.add_argument("--json", action="store_true", help="every day's state and the lines, as JSON")
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        today = args.today or dt.date.today()  # the one clock: here, never inside the check
        states = month_states(delta_spark("check_month", commits=0), args.month, today)
        ok, lines = month_verdict(args.month, states)
        if args.json:
            print(month_json(args.month, today, states, ok, lines))
        else:
            print("\n".join(draw_calendar(args.month, states, wants_colour(sys.stdout)) + [""] + lines))
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
