"""A day's rows in orders_daily compared with its landing file, order by order, ids and values (in
Python; a big day's inside Spark: spark_compare.py): for one day (check_day.py) and for the calendar
(day_truth.py); their words are verdict.py's.

    from shoptoolkit.truth.day_compare import compare_day
    compare_day("2026-09-15", [1, 2, 3], "", [1, 2, 2])   # (False, 'PROBLEM 2026-09-15: 3 rows for ...')
"""
from collections import Counter

from shoptoolkit.errors import ToolkitError
from shoptoolkit.row_values import differences, extra_columns, table_columns, table_values
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table.delta_table import orders_table
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.in_python import read_day_file
from shoptoolkit.till.in_spark import checked_day
from shoptoolkit.truth.verdict import day_verdict, listed, without_file


def stored_rows(spark, first_day, last_day, leave_out=(), table=None) -> dict:
    """The rows the table holds for each day from first_day to last_day but the days leave_out (big ones,
    compared inside Spark), in one scan: {day: [(order_id, values)]} (values as row_values gives them).
    table: orders_table's frame when the caller has it."""
    from pyspark.sql import functions as F
    table = the_table(spark, table)
    extras = extra_columns(table)
    rows = (table.where(F.col(PARTITION_COLUMN).between(F.lit(first_day), F.lit(last_day))
                        & ~F.col(PARTITION_COLUMN).isin(list(leave_out)))
            .select(PARTITION_COLUMN, *table_columns(extras))
            .collect())
    found = {}
    for day, order_id, *values in rows:
        found.setdefault(day, []).append((order_id, table_values(values, extras)))
    return found


def stored_ids(spark, first_day, last_day, leave_out=()) -> dict:
    """stored_rows' order ids alone."""
    return {day: [order_id for order_id, _ in rows]
            for day, rows in stored_rows(spark, first_day, last_day, leave_out).items()}


def checked_file(day, spark=None):
    """The day's file after its line-by-line check (with a session: inside Spark for a big file), or None
    and a short reason ('no file', a bad line)."""
    if not day_file(day).exists():
        return None, "no file"
    try:
        return (read_day_file(day) if spark is None else checked_day(spark, day, digest=False)), ""
    except ToolkitError as error:
        return None, f"bad file ({error})"


def file_ids(day):
    """The day file's order ids, or None and a short reason why there are none."""
    found, why = checked_file(day)
    return (found.order_ids if found else None), why


def compare_day(day, in_file, why_no_ids: str, in_table: list):
    """(ok, message) for one day: the table's rows against the file's orders. in_file: the file's ids, or
    {id: values} (DayFile.values); in_table: the table's ids, or [(id, values)]. With values on both
    sides, an order whose customer, amount or time differs is `differing`, the first one named."""
    table_ids = [row[0] if isinstance(row, tuple) else row for row in in_table]
    if in_file is None:
        return without_file(day, why_no_ids, len(table_ids))
    in_table_count = Counter(table_ids)
    missing = set(in_file) - set(in_table_count)
    extra = set(in_table_count) - set(in_file)
    twice = [order_id for order_id, count in in_table_count.items() if count > 1]
    differing = {} if not isinstance(in_file, dict) else {
        row[0]: differences(in_file[row[0]], row[1]) for row in in_table
        if isinstance(row, tuple) and in_table_count[row[0]] == 1 and row[0] in in_file and in_file[row[0]] != row[1]}
    first = min(differing, default=None)
    return day_verdict(day, len(table_ids), len(in_file),
                       {"missing": (len(missing), listed(missing)),
                        "not in the file": (len(extra), listed(extra)),
                        "duplicated": (len(twice), listed(twice)),
                        "differing": (len(differing), listed(differing))},
                       first and f"order {first}: {differing[first]}")


def rows_of_day(spark, day, table=None) -> int:
    """How many rows the table holds for day, counted by Spark."""
    from pyspark.sql import functions as F
    return the_table(spark, table).where(F.col(PARTITION_COLUMN) == F.lit(day)).count()


def compare_checked(day, found, why: str, in_table: list):
    """compare_day for a day file as checked_file found it (None and why when it has no ids)."""
    return compare_day(day, found.values if found else None, why, in_table)


def the_table(spark, table=None):
    """orders_table's frame: table when the caller has it, else made now (which checks the table is there)."""
    return orders_table(spark) if table is None else table
