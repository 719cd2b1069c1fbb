"""The references of bench_engine.py, each into a table of its own below the project root (never
orders_daily): plain Spark's minimal load (root/plain/orders_daily) and delta-rs (lake/orders_daily_rs,
bench_commits.py's write). Each returns (seconds, what to add to its line)."""
import shutil
import time

from bench_commits import deltalake_range
from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import day_file, project_root, table_path
from shoptoolkit.table_schema import PARTITION_COLUMN, TABLE, columns_ddl
from shoptoolkit.till.day_frames import DAY_FILE_NAME


def plain_table():
    return project_root() / "plain" / TABLE


def plain_read(spark, days):
    """The days' files as plain Spark reads them: the table's schema, a header, a bad line an error."""
    return (spark.read.schema(columns_ddl())
            .options(header=True, mode="FAILFAST", timestampFormat="yyyy-MM-dd'T'HH:mm:ss")
            .csv([str(day_file(day)) for day in days]))


def replaced(spark, orders, predicate: str, began: float) -> tuple:
    """Replace what predicate selects in plain Spark's table with orders, in one commit, and count the
    table; (seconds since began, its rows)."""
    orders.write.format("delta").mode("overwrite").option("replaceWhere", predicate).save(str(plain_table()))
    rows = spark.read.format("delta").load(str(plain_table())).count()
    return time.perf_counter() - began, f" ({rows:,} rows in the table)"


def plain_orders(spark, days: list):
    """plain_read of days, each row with its day: one day's as a DATE literal, several days' from each file's name."""
    from pyspark.sql import functions as F
    day = F.lit(days[0]) if len(days) == 1 else F.to_date(F.regexp_extract(F.input_file_name(), DAY_FILE_NAME, 1))
    return plain_read(spark, days).withColumn(PARTITION_COLUMN, day)


def days_predicate(days: list) -> str:
    """The replaceWhere of days (in order): the one day, or the first to the last."""
    if len(days) == 1:
        return f"{PARTITION_COLUMN} = DATE'{days[0]}'"
    return f"{PARTITION_COLUMN} >= DATE'{days[0]}' AND {PARTITION_COLUMN} <= DATE'{days[-1]}'"


def clear_plain_table() -> None:
    """No plain Spark table: the next write makes a new one."""
    shutil.rmtree(plain_table(), ignore_errors=True)


def plain_day(spark, day) -> tuple:
    """Plain Spark's minimal load of one day: its file with the day as a DATE literal, replaceWhere."""
    began = time.perf_counter()
    return replaced(spark, plain_orders(spark, [day]), days_predicate([day]), began)


def plain_days(spark, first, last) -> tuple:
    """Plain Spark's load of the days first to last in one commit, each row's day from its file's name."""
    began = time.perf_counter()
    days = list(run_dates(first, last))
    return replaced(spark, plain_orders(spark, days), days_predicate(days), began)


def plain_days_anew(spark, first, last) -> tuple:
    """plain_days into an empty table, as bench_commits.timed_backfill gives the toolkit."""
    clear_plain_table()
    return plain_days(spark, first, last)


def rs_missing() -> str:
    """Why delta-rs cannot run here, or '' when it can."""
    try:
        import deltalake  # noqa: F401
        import pyarrow  # noqa: F401
    except ImportError as error:
        return f"{error} (pip install -r requirements/bench.txt)"
    return ""


def rs_day(run_date) -> tuple:
    """delta-rs: bench_commits.py's write of the day run_date loads (pyarrow.csv, write_deltalake overwrite
    with a predicate), then a count and a check that no order id repeats (pyarrow compute)."""
    from deltalake import DeltaTable
    from pyarrow import compute
    began = time.perf_counter()
    deltalake_range(run_date, run_date)
    ids = DeltaTable(str(table_path().with_name("orders_daily_rs"))).to_pyarrow_table(columns=["order_id"])
    repeated = ids.num_rows - compute.count_distinct(ids["order_id"]).as_py()
    assert repeated == 0, f"{repeated} repeated order ids"
    return time.perf_counter() - began, f" ({ids.num_rows:,} rows, no id repeated)"
