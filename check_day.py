"""Check one day of orders_daily against its landing file, order by order: ids and values.

    python check_day.py 2026-09-16          # checks day 2026-09-15, the day run 2026-09-16 loads
    python check_day.py 2026-09-16 --deep   # compares the rows with the file even when the log proves the day

Prints `ok ...` (exit 0) or a line starting with `PROBLEM` that says what is wrong (exit 1). When the
day's rows are still those its latest load wrote, and its file unchanged, the Delta log proves it
(shoptoolkit/truth/day_record.py, docs/check.md) and no data file is read, nor Spark started unless the
session is elsewhere (SPARK_REMOTE, SPARK_MASTER); anything else that touched the day, whoever wrote
it, sends the check to the comparison: each order's id, customer, amount and time (UTC).
"""
import argparse
import os

from delta_session import delta_spark, queries_for
from shoptoolkit.engine import DATABRICKS_ENV
from shoptoolkit.run_args import add_root, add_verbose, as_date, day_loaded_by, parse_date, run_main
from shoptoolkit.table import orders_table
from shoptoolkit.truth import DayTruth


def check_day(spark, run_date, deep: bool = False, truth=None):
    """Compare the day run_date loads with its file; return (ok, message). The load's record in the Delta
    log answers when it proves the day (not with deep); else a big file is checked and compared inside
    Spark: only counts and the first differing ids come back. truth: the day's DayTruth when the caller
    has taken its facts already (a terminal run's)."""
    day = day_loaded_by(as_date(run_date))
    truth = truth or DayTruth([day], deep)
    if day in truth.proven():
        return truth.proven()[day]
    with queries_for(spark, truth.size()):  # the size from the file's one read
        found = truth.states(spark, lineage=False, table=orders_table(spark))[0]  # no table: its one-line error
    return found.matches, found.message


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
        truth = DayTruth([day_loaded_by(args.run_date)], args.deep)
        recorded = {} if not_local() else truth.proven()  # the log and the file, before Spark starts
        ok, message = recorded.get(truth.days[0]) or check_day(delta_spark("check_day", commits=0, days=truth.days),
                                                                args.run_date, args.deep, truth)
        print(message)
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
