"""Read orders_daily in a process of its own, its own Spark: every row, its columns beyond the till's, and
whether it is partitioned, as JSON.

    python tests/model/fresh_read.py --root DIR      # null when there is no table
    python tests/model/fresh_read.py --serve         # a root a line on stdin, its JSON a line on stdout

The model check reads each history's table this way at the end: a table the shared session reads could
still be one another session cannot (a log it cached, a file a killed writer left half-made). One
--serve process reads the tables of every history of a test run: each history's root is a folder it
has never read, so Delta holds nothing of that table in it, as in a new process, without a JVM's start
for each history.
"""
import datetime as dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from delta_session import delta_spark, orders_table, partition_columns, set_root, table_exists  # noqa: E402


OWN = ("order_id", "customer_id", "amount", "ordered_at", "order_date")


def table_columns(spark) -> list:
    """[name, type] of the table's columns beyond the till's and the day (a new column, _rescued_data), in order."""
    return [[one.name, one.dataType.simpleString().upper()] for one in orders_table(spark).schema.fields
            if one.name not in OWN]


def table_rows(spark) -> list:
    """Every row as [order_id, customer_id, amount, ordered_at, order_date, extras], the values as the model
    writes them (the time in UTC, whatever the session's time zone; extras: [column, value] of the columns
    beyond those, as text, without the nulls)."""
    from pyspark.sql import functions as F
    epoch = dt.datetime(1970, 1, 1)
    extras = [name for name, _ in table_columns(spark)]
    return [[order_id, customer, amount, (epoch + dt.timedelta(microseconds=micros)).isoformat(), day,
             sorted([name, value] for name, value in zip(extras, more) if value is not None)]
            for order_id, customer, amount, micros, day, *more in orders_table(spark).select(
                "order_id", "customer_id", F.col("amount").cast("string"), F.unix_micros("ordered_at"),
                F.col("order_date").cast("string"), *(F.col(name).cast("string") for name in extras)).collect()]


def read_all(spark):
    """{"rows": table_rows, "columns": table_columns, "partitioned": bool}, or None when there is no table."""
    if not table_exists(spark):
        return None
    return {"rows": table_rows(spark), "columns": table_columns(spark),
            "partitioned": partition_columns(spark) == ["order_date"]}



def serve() -> None:
    """For each root read from stdin, the JSON of its table on stdout, a line each. The session is made
    after the first root is set, so that a bucket's first root brings the S3 connector with it."""
    from shoptoolkit.engine.spark_errors import one_line
    spark = None
    for line in sys.stdin:
        set_root(line.strip())
        spark = spark or delta_spark("fresh_read", commits=0)
        try:
            print(json.dumps(read_all(spark)), flush=True)
        except Exception as error:  # a table this session cannot read: the model check's divergence
            print(json.dumps({"error": one_line(error)}), flush=True)


if __name__ == "__main__":
    if "--serve" in sys.argv:
        serve()
    else:
        set_root(sys.argv[sys.argv.index("--root") + 1])
        print(json.dumps(read_all(delta_spark("fresh_read", commits=0))))
