"""Check orders_by_day, the pipeline's orders per day, against the landing files, day by day.

    python check_pipeline.py 2026-09                      # every day of September
    python check_pipeline.py 2026-12 --today 2026-12-16   # December up to the 15th, the day run 12-16 loads

A day matches when orders_by_day holds the orders and the amount of its file (checked as a load checks
it: line by line in Python, or inside Spark from project_paths.BIG_FILES on, where Spark sums its amounts too). A day with no file is a problem, as in check_month.py; a day whose run date is after
--today is not checked yet. Prints a PROBLEM line per day that does not match and a closing line;
exit 0 when every day matches, 1 otherwise. orders_by_day is read by its path, lake/orders_by_day:
the pipeline's catalog (Derby) admits one process, so this check does not use it.
"""
import argparse
import csv
from decimal import Decimal

from delta_session import delta_spark
from shoptoolkit.run_args import ToolkitError, add_root, add_verbose, day_loaded_by, parse_date, parse_month, run_main
from shoptoolkit.storage import LAKE, project_root, shown
from shoptoolkit.table import PARTITION_COLUMN, delta_log_problem
from shoptoolkit.till import read_days
from shoptoolkit.truth import checked_file, totals_verdict, view_month_verdict
from check_month import first_of, month_days

VIEW = "orders_by_day"
NOTHING = (0, Decimal("0"))


def view_path():
    return project_root() / LAKE / VIEW


def view_days(spark, first_day, last_day) -> dict:
    """{day: (orders, amount)} of orders_by_day from first_day to last_day, in one scan."""
    from pyspark.sql import functions as F
    log = view_path() / "_delta_log"
    if not log.is_dir():
        raise ToolkitError(f"no Delta table at {shown(view_path())}: run the pipeline first "
                           f"(python run_pipeline.py)")
    problem = delta_log_problem(log)
    if problem:
        raise ToolkitError(f"table {shown(view_path())} cannot be read: {problem}")
    rows = (spark.read.format("delta").load(str(view_path()))
            .where(F.col(PARTITION_COLUMN).between(F.lit(first_day), F.lit(last_day)))
            .select(PARTITION_COLUMN, "orders", "amount")
            .collect())
    return {row[PARTITION_COLUMN]: (row.orders, Decimal(row.amount)) for row in rows}


def file_amount(found) -> Decimal:
    """The sum of a file's amounts after its check in Python (every amount has passed it: a number like 19.99)."""
    at = found.columns.index("amount")
    with found.path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        next(rows)
        return sum((Decimal(row[at]) for row in rows if row), NOTHING[1])


def spark_amount(spark, found) -> Decimal:
    """The sum of a file's amounts after its check in Spark (a big file, never read in Python)."""
    from pyspark.sql import functions as F
    total = read_days(spark, [(None, found)]).agg(F.sum("amount")).first()[0]
    return NOTHING[1] if total is None else Decimal(total)


def file_totals(spark, day):
    """(orders, amount) of the day's file after its check, or None and why there are none. A file that
    Spark checked (a big one: its DayFile keeps no ids) is summed by Spark."""
    found, why = checked_file(day, spark)
    if not found:
        return None, why
    return (found.count, file_amount(found) if found.order_ids is not None else spark_amount(spark, found)), why


def shown_totals(totals) -> str:
    return f"{totals[0]} orders, {totals[1]:.2f}"


def compare_day(day, in_file, why: str, in_view):
    """(ok, message) for one day: orders_by_day's orders and amount against the file's."""
    return totals_verdict(day, in_file, why, in_view or NOTHING, VIEW, shown_totals)


def days_to_check(month, today) -> list:
    """The month's days, up to the day the run on today loads (every day when today is None)."""
    days = month_days(first_of(month))
    return [day for day in days if today is None or day <= day_loaded_by(today)]


def check_pipeline(spark, month, today=None) -> tuple:
    """Compare every day of month (up to today's run) with its file; return (ok, lines to print)."""
    days = days_to_check(month, today)
    if not days:
        raise ToolkitError(f"no day of {first_of(month):%Y-%m} is loaded by a run up to {today}")
    in_view = view_days(spark, days[0], days[-1])
    results = [compare_day(day, *file_totals(spark, day), in_view.get(day)) for day in days]
    return pipeline_verdict(month, results, [in_view.get(day, NOTHING) for day in days])


def pipeline_verdict(month, results: list, totals: list) -> tuple:
    """(ok, PROBLEM lines and the closing line) from each day's (ok, message) and its totals in the view."""
    orders, amount = sum(count for count, _ in totals), sum((money for _, money in totals), NOTHING[1])
    return view_month_verdict(f"{first_of(month):%Y-%m}", results, VIEW, orders, amount)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("month", type=parse_month, help="the month to check, YYYY-MM")
    parser.add_argument("--today", type=parse_date,
                        help="check only the days loaded by runs up to this date (default: all of the month)")
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        spark = delta_spark("check_pipeline", commits=0, days=days_to_check(args.month, args.today))
        ok, lines = check_pipeline(spark, args.month, args.today)
        print("\n".join(lines))
        return 0 if ok else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
