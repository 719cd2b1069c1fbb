"""Load and check every run date from FIRST to LAST in one Spark session.

    python backfill.py 2026-09-02 2026-10-01     # the 30 runs that load September

A line per run as it goes, with its time. A failed run (no file, bad data, a failed check) is
reported and the backfill goes on with the next date, as an orchestrator's backfill does; the
closing line counts and names the failed run dates, and the exit code is 1 if any failed.
Rerunning it, or starting over after a stop, ends with the same table.
"""
import argparse
import time

from delta_session import (TABLE, add_verbose, check_range, delta_spark, one_line, orders_table,
                           parse_date, run_dates, run_main, table_exists)
from check_day import check_day
from load_day import load_day


def run_one(spark, run_date) -> tuple:
    """Load and check one run date; return (ok, line to print)."""
    started = time.perf_counter()
    try:
        loaded = load_day(spark, run_date)
        ok, checked = check_day(spark, run_date)
        line = f"{loaded}; {checked}"
    except Exception as error:  # one failed run must not stop the backfill
        ok, line = False, f"run {run_date} failed: {one_line(error)}"
    return ok, f"{line} ({time.perf_counter() - started:.2f} s)"


def table_summary(spark) -> str:
    if not table_exists(spark):
        return f"{TABLE} does not exist"
    from pyspark.sql import functions as F
    days, orders = (orders_table(spark)
                    .agg(F.countDistinct("order_date"), F.count("*")).first())
    return f"{TABLE} has {days} days, {orders} orders"


def backfill(spark, first, last, show=print) -> tuple:
    """Run every date from first to last; show each run's line; return (failed dates, closing line)."""
    dates = run_dates(first, last)
    failed = []
    for run_date in dates:
        ok, line = run_one(spark, run_date)
        show(line)
        if not ok:
            failed.append(run_date)
    named = f" ({', '.join(map(str, failed))})" if failed else ""
    closing = f"ran {len(dates)} runs, {len(failed)} failed{named}; {table_summary(spark)}"
    return failed, closing


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=parse_date, help="first run date (YYYY-MM-DD)")
    parser.add_argument("last", type=parse_date, help="last run date (YYYY-MM-DD), included")
    parser.add_argument("--allow-long", action="store_true", help="allow more than a year of runs")
    add_verbose(parser)
    args = parser.parse_args(argv)
    check_range(parser, args.first, args.last, args.allow_long)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        failed, closing = backfill(delta_spark("backfill"), args.first, args.last,
                                   show=lambda line: print(line, flush=True))
        print(closing)
        return 1 if failed else 0
    return run_main(body, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
