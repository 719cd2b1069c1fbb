"""A day's rows in orders_daily compared with its landing file, order id by order id: for one day
(check_day.py), for the days of one commit in one query (load_days.py), for the calendar (day_states.py).

    from shoptoolkit.day_compare import compare_day
    compare_day("2026-09-15", [1, 2, 3], "", [1, 2, 2])   # (False, 'PROBLEM 2026-09-15: 3 rows for ...')
"""
from collections import Counter

from shoptoolkit.file_check.in_python import read_day_file, read_orders
from shoptoolkit.errors import ToolkitError
from shoptoolkit.project_paths import day_file
from shoptoolkit.file_check.in_spark import checked_day
from shoptoolkit.table import orders_table
from shoptoolkit.table_schema import PARTITION_COLUMN


def stored_ids(spark, first_day, last_day, leave_out=()) -> dict:
    """The order ids the table holds for each day from first_day to last_day but the days leave_out
    (big ones, compared inside Spark), in one scan."""
    from pyspark.sql import functions as F
    rows = (orders_table(spark)
            .where(F.col(PARTITION_COLUMN).between(F.lit(first_day), F.lit(last_day))
                   & ~F.col(PARTITION_COLUMN).isin(list(leave_out)))
            .select(PARTITION_COLUMN, "order_id")
            .collect())
    ids = {}
    for row in rows:
        ids.setdefault(row[PARTITION_COLUMN], []).append(row.order_id)
    return ids


def checked_file(day, spark=None):
    """The day's file after its line-by-line check (with a session: inside Spark for a big file), or None
    and a short reason ('no file', a bad line)."""
    if not day_file(day).exists():
        return None, "no file"
    try:
        return (read_day_file(day) if spark is None else checked_day(spark, day)), ""
    except ToolkitError as error:
        return None, f"bad file ({error})"


def file_ids(day):
    """The day file's order ids, or None and a short reason why there are none."""
    found, why = checked_file(day)
    return (found.order_ids if found else None), why


def listed(ids) -> str:
    ids = sorted(ids)
    return ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")


def compare_day(day, ids_in_file, why_no_ids: str, ids_in_table: list):
    """(ok, message) for one day: the table's ids against the file's."""
    if ids_in_file is None:
        return without_file(day, why_no_ids, len(ids_in_table))
    in_table = Counter(ids_in_table)
    missing = set(ids_in_file) - set(in_table)
    extra = set(in_table) - set(ids_in_file)
    twice = [order_id for order_id, count in in_table.items() if count > 1]
    return day_verdict(day, len(ids_in_table), len(ids_in_file),
                       {"missing": (len(missing), listed(missing)),
                        "not in the file": (len(extra), listed(extra)),
                        "duplicated": (len(twice), listed(twice))})


def without_file(day, why: str, rows: int):
    """(False, message) for a day whose file has no ids to compare: none, or refused (why)."""
    return False, f"PROBLEM {day}: {why}, {rows} rows"


def rows_of_day(spark, day) -> int:
    """How many rows the table holds for day, counted by Spark."""
    from pyspark.sql import functions as F
    return orders_table(spark).where(F.col(PARTITION_COLUMN) == F.lit(day)).count()


def compare_checked(day, found, why: str, ids_in_table: list):
    """compare_day for a day file as checked_file found it (None and why when it has no ids)."""
    return compare_day(day, found.order_ids if found else None, why, ids_in_table)


def day_verdict(day, rows: int, orders: int, differences: dict):
    """(ok, message) from the counts: differences maps a kind to (how many, the first ids listed)."""
    head = f"{rows} rows for the file's {orders} orders"
    found = [f"{count} {kind} ({ids})" for kind, (count, ids) in differences.items() if count]
    if not found:
        return True, f"ok {day}: {head}, 0 missing"
    return False, f"PROBLEM {day}: " + ", ".join([head] + found)


# A day with more orders than this is compared inside Spark: only the counts and the first few
# differing ids come back to Python, never the day's ids.
IDS_IN_PYTHON = 100_000


def compare_in_spark(spark, found, day):
    """(ok, message) for a big day: the file read by Spark counted with the day's rows, by order id."""
    from pyspark.sql import functions as F
    counted = ids_counted(read_orders(spark, found, day).select(F.lit(day).alias(PARTITION_COLUMN), "order_id"),
                          orders_table(spark).where(F.col(PARTITION_COLUMN) == F.lit(day)))
    kinds = counted.select("order_id", "copies", F.when(F.col("copies") == 0, "missing")
                           .when(F.col("in_file") == 0, "not in the file")
                           .when(F.col("copies") > 1, "duplicated").alias("kind"))
    names = ("missing", "not in the file", "duplicated")
    rows, *counts = kinds.agg(F.coalesce(F.sum("copies"), F.lit(0)),
                              *(F.count_if(F.col("kind") == name) for name in names)).first()
    differences = {name: (count, first_ids(kinds, name) if count else "") for name, count in zip(names, counts)}
    return day_verdict(day, rows, found.count, differences)


def all_missing_in_spark(spark, found, day):
    """(False, message) for a big day while there is no table yet: every order of its file is missing, the
    first ids listed as compare_day lists them (found by Spark)."""
    ids = read_orders(spark, found, day).select("order_id").orderBy("order_id").limit(6).collect()
    return day_verdict(day, 0, found.count, {"missing": (found.count, listed([row.order_id for row in ids]))})


def first_ids(kinds, kind: str) -> str:
    """The first five ids of one kind of difference, as listed() shows them."""
    ids = [row.order_id for row in kinds.where(kinds.kind == kind).orderBy("order_id").limit(6).collect()]
    return listed(ids[:5]) + (", ..." if len(ids) > 5 else "")


KINDS = {"missing": "copies = 0", "not in the file": "in_file = 0", "duplicated": "copies > 1"}


def ids_counted(in_files, in_table):
    """A row a (day, order id) of the files' orders (in_files: day and order_id) and the table's rows
    (in_table), with in_file (how many times the files hold it: 0 or 1) and copies (the table's rows of
    it): one aggregation over both, cheaper than joining them."""
    from pyspark.sql import functions as F
    files = in_files.select(PARTITION_COLUMN, "order_id", F.lit(1).alias("in_file"), F.lit(0).alias("copies"))
    table = in_table.select(PARTITION_COLUMN, "order_id", F.lit(0).alias("in_file"), F.lit(1).alias("copies"))
    return (files.unionByName(table).groupBy(PARTITION_COLUMN, "order_id")
            .agg(F.sum("in_file").alias("in_file"), F.sum("copies").alias("copies")))


def check_days(spark, found_days: list, in_files=None) -> dict:
    """{day: (ok, message)} for the days of one commit, [(day, DayFile)], in one Spark query: the table's
    order ids of those days against their files' ids. Up to IDS_IN_PYTHON ids in all (of files checked
    in Python), the table's ids come back and are compared as check_day compares a day; more, or files
    checked in Spark, are compared inside Spark with
    in_files (read_days' frame of the files), by day and order id, and only counts come back."""
    from pyspark.sql import functions as F
    days = [day for day, _ in found_days]
    in_python = all(found.order_ids is not None for _, found in found_days)  # else checked in Spark
    if in_python and sum(found.count for _, found in found_days) <= IDS_IN_PYTHON:
        ids = {}
        for row in (orders_table(spark).where(F.col(PARTITION_COLUMN).isin(days))
                    .select(PARTITION_COLUMN, "order_id").collect()):
            ids.setdefault(row[PARTITION_COLUMN], []).append(row.order_id)
        return {day: compare_day(day, found.order_ids, "", ids.get(day, [])) for day, found in found_days}
    joined = ids_counted(in_files, orders_table(spark).where(F.col(PARTITION_COLUMN).isin(days)))
    per_kind = [agg for name, (kind, when) in enumerate(KINDS.items()) for agg in (
        F.count(F.when(F.expr(when), 1)).alias(f"n{name}"),
        F.slice(F.sort_array(F.collect_list(F.when(F.expr(when), F.col("order_id")))), 1, 6).alias(f"ids{name}"))]
    counted = {row[PARTITION_COLUMN]: row for row in
               joined.groupBy(PARTITION_COLUMN).agg(F.coalesce(F.sum("copies"), F.lit(0)).alias("rows"),
                                                    *per_kind).collect()}
    return {day: day_counts(day, found.count, counted.get(day)) for day, found in found_days}


def day_counts(day, orders: int, row):
    """check_days' verdict for one day from its row of counts (None: neither the file nor the table has an id)."""
    if row is None:
        return day_verdict(day, 0, orders, {kind: (0, "") for kind in KINDS})
    return day_verdict(day, row.rows, orders,
                       {kind: (row[f"n{name}"], listed(row[f"ids{name}"])) for name, kind in enumerate(KINDS)})
