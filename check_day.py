"""Check one day of orders_daily against its landing file, order by order: ids and values.

    python check_day.py 2026-09-16          # checks day 2026-09-15, the day run 2026-09-16 loads
    python check_day.py 2026-09-16 --deep   # compares the rows with the file even when the log proves the day

Prints `ok ...` (exit 0) or a line starting with `PROBLEM` that says what is wrong (exit 1). When the
day's rows are still those its latest load wrote, and its file unchanged, the Delta log proves it
(shoptoolkit/day_record.py, docs/check.md) and no data file is read, nor Spark started unless the
session is elsewhere (SPARK_REMOTE, SPARK_MASTER); anything else that touched the day, whoever wrote
it, sends the check to the comparison: each order's id, customer, amount and time (UTC).
"""
import argparse
import os

from delta_session import delta_spark, small_day_queries
from shoptoolkit.day_compare import checked_file, compare_checked, rows_of_day, stored_rows, without_file
from shoptoolkit.day_record import recorded_checks
from shoptoolkit.errors import run_main
from shoptoolkit.run_args import add_root, add_verbose, as_date, day_loaded_by, parse_date
from shoptoolkit.file_check.in_spark import spark_sized
from shoptoolkit.spark_compare import IDS_IN_PYTHON, compare_in_spark
from shoptoolkit.spark_settings import DATABRICKS_ENV


@small_day_queries
def check_day(spark, run_date, deep: bool = False):
    """Compare the day run_date loads with its file; return (ok, message). The load's record in the Delta
    log answers when it proves the day (not with deep); else a big file is checked and compared inside
    Spark: only counts and the first differing ids come back."""
    day = day_loaded_by(as_date(run_date))
    recorded = {} if deep else recorded_checks([day])
    if day in recorded:
        return recorded[day]
    found, why = checked_file(day, spark)
    if found and (found.order_ids is None or found.count > IDS_IN_PYTHON):
        return compare_in_spark(spark, found, day)
    if not found and spark_sized([day]):
        return without_file(day, why, rows_of_day(spark, day))
    return compare_checked(day, found, why, stored_rows(spark, day, day).get(day, []))


def not_local() -> bool:
    """A session elsewhere (SPARK_REMOTE, SPARK_MASTER, Databricks) is started, and so asked, before anything."""
    return any(os.environ.get(name) for name in ("SPARK_REMOTE", "SPARK_MASTER", DATABRICKS_ENV))


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_date", type=parse_date, help="run date D (YYYY-MM-DD); checks day D-1")
    parser.add_argument("--deep", action="store_true", help="compare the rows with the file even when the log proves the day")
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        day = day_loaded_by(args.run_date)
        recorded = {} if args.deep or not_local() else recorded_checks([day])
        ok, message = recorded.get(day) or check_day(delta_spark("check_day", commits=0, days=[day]), args.run_date,
                                                      args.deep)
        print(message)
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
