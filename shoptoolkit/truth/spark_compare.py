"""Big days compared with their files inside Spark, order by order, ids and values: only counts, the
first differing ids and the first differing order's values come back to Python, never a day's rows.

    from shoptoolkit.truth.spark_compare import compare_in_spark
    compare_in_spark(spark, found, day)            # (ok, message, rows), as day_compare.compare_day words it

The file's and the table's rows meet in one aggregation by (day, order id), each side carrying a hash of
its values (customer, amount, the time as an instant): an order of the file and the table whose hashes
differ is `differing`, and only its two rows are read again to name what differs.
"""
from shoptoolkit.row_values import (differences, extra_columns, spark_digest, spark_extras_text, spark_hash_sum,
                                    spark_orders_hash, table_columns, table_values)
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.in_python import read_orders
from shoptoolkit.truth.day_compare import the_table
from shoptoolkit.truth.verdict import day_verdict, listed

# A day with more orders than this is compared inside Spark: only the counts and the first few
# differing ids come back to Python, never the day's ids.
IDS_IN_PYTHON = 100_000
KINDS = {"missing": "copies = 0", "not in the file": "in_file = 0", "duplicated": "copies > 1",
         "differing": "in_file = 1 AND copies = 1 AND file_hash <> table_hash"}


def compare_in_spark(spark, found, day, table=None):
    """(ok, message, the table's rows of the day) for a big day: the file read by Spark against the day's
    rows, by order id and values."""
    return counted_days(spark, [(day, found)], read_orders(spark, found, day), table)[day]


def all_missing_in_spark(spark, found, day):
    """(False, message) for a big day while there is no table yet: every order of its file is missing, the
    first ids listed as compare_day lists them (found by Spark)."""
    ids = read_orders(spark, found, day).select("order_id").orderBy("order_id").limit(6).collect()
    return day_verdict(day, 0, found.count, {"missing": (found.count, listed([row.order_id for row in ids]))})


def ids_counted(in_files, in_table):
    """A row a (day, order id) of the files' orders and the table's rows (both with the table's columns),
    with in_file (how many times the files hold it: 0 or 1), copies (the table's rows of it) and each
    side's hash of its values: one aggregation over both, cheaper than joining them."""
    from pyspark.sql import functions as F
    def values(frame):  # a timestamp hashes as its instant; new columns as text, as the Python check has them
        return F.xxhash64("customer_id", "amount", "ordered_at", spark_extras_text(frame))
    files = in_files.select(PARTITION_COLUMN, "order_id", F.lit(1).alias("in_file"), F.lit(0).alias("copies"),
                            values(in_files).alias("file_hash"), F.lit(None).cast("long").alias("table_hash"))
    table = in_table.select(PARTITION_COLUMN, "order_id", F.lit(0).alias("in_file"), F.lit(1).alias("copies"),
                            F.lit(None).cast("long").alias("file_hash"), values(in_table).alias("table_hash"))
    return (files.unionByName(table).groupBy(PARTITION_COLUMN, "order_id")
            .agg(F.sum("in_file").alias("in_file"), F.sum("copies").alias("copies"),
                 F.max("file_hash").alias("file_hash"), F.max("table_hash").alias("table_hash")))


def counted_days(spark, found_days: list, in_files, table=None) -> dict:
    """{day: (ok, message, the table's rows of the day)} for [(day, DayFile)], in one Spark query: the
    files' orders (in_files, with their day) against the table's rows, by day and order id; only counts
    and the first differing ids come back."""
    from pyspark.sql import functions as F
    days = [day for day, _ in found_days]
    in_table = the_table(spark, table).where(F.col(PARTITION_COLUMN).isin(days))
    joined = ids_counted(in_files, in_table)
    per_kind = [agg for name, when in enumerate(KINDS.values()) for agg in (
        F.count(F.when(F.expr(when), 1)).alias(f"n{name}"),
        F.slice(F.sort_array(F.collect_list(F.when(F.expr(when), F.col("order_id")))), 1, 6).alias(f"ids{name}"))]
    counted = {row[PARTITION_COLUMN]: row for row in
               joined.groupBy(PARTITION_COLUMN).agg(F.coalesce(F.sum("copies"), F.lit(0)).alias("rows"),
                                                    *per_kind).collect()}
    return {day: (*day_counts(day, found.count, counted.get(day), in_files, in_table),
                  counted[day].rows if day in counted else 0) for day, found in found_days}


def day_counts(day, orders: int, row, in_files, in_table):
    """counted_days' verdict for one day from its row of counts (None: neither the file nor the table has an
    id); the first differing order's values are read again, from both sides, to name what differs."""
    if row is None:
        return day_verdict(day, 0, orders, {kind: (0, "") for kind in KINDS})
    kinds = {kind: (row[f"n{name}"], listed(row[f"ids{name}"])) for name, kind in enumerate(KINDS)}
    differing = row[f"ids{list(KINDS).index('differing')}"]
    detail = first_difference(day, differing[0], in_files, in_table) if differing else ""
    return day_verdict(day, row.rows, orders, kinds, detail)


def first_difference(day, order_id: int, in_files, in_table) -> str:
    """`order N: ...` for an order whose values differ between the files and the table (two small reads)."""
    from pyspark.sql import functions as F

    def values(frame):
        extras = extra_columns(frame)
        one = (frame.where((F.col(PARTITION_COLUMN) == F.lit(day)) & (F.col("order_id") == order_id))
               .select(*table_columns(extras)).first())
        return table_values(one[1:], extras)
    return f"order {order_id}: {differences(values(in_files), values(in_table))}"


def table_digest(spark, day, table=None) -> str:
    """row_values' digest of the day's rows in the table, their new columns with them, computed inside Spark."""
    from pyspark.sql import functions as F
    rows = the_table(spark, table).where(F.col(PARTITION_COLUMN) == F.lit(day))
    return spark_digest(rows.agg(spark_hash_sum(spark_orders_hash(rows))).first()[0])
