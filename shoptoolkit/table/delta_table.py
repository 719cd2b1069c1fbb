"""orders_daily in a session: whether it exists, the table as a DataFrame under its name, its history and
its earlier versions, its layout. delta_session.py re-exports what the scripts use.

    from shoptoolkit.table.delta_table import orders_table, table_exists
"""
import os

from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import shown, table_path
from shoptoolkit.table.delta_log_check import log_look, newest_commit
from shoptoolkit.table.first_load import CreatingWriter, being_created
from shoptoolkit.table_schema import PARTITION_COLUMN, TABLE

LOCATION_KEY = "shop.orders_daily.location"  # session setting: where this session's view points
PARTITIONED_ENV = "SHOP_PARTITIONED"
# Up to this many ids, a clash check names them in its query (one job, no join); a bigger day is
# joined with its own rows read from the file instead.
IDS_IN_QUERY = 1000


def table_exists(spark) -> bool:
    """False only when lake/orders_daily does not exist at all (the first load creates it), or when
    another first load is writing it and its first commit has not landed yet (first_load.py).

    A folder there without a readable Delta log is an error, never a place to start a new table:
    a deleted or damaged _delta_log would otherwise be papered over by a table holding one day."""
    return exists_with(log_look(table_path() / "_delta_log")[0])


def exists_with(problem: str) -> bool:
    """table_exists, given what the log's one listing found: a log that reads is a table (the folder is
    looked at only when it does not: on a bucket each look is requests)."""
    if not problem:
        return True
    if not table_path().exists() or being_created():
        return False  # no table, or no commit yet: another first load is writing it (first_load.py)
    raise ToolkitError(f"table {shown(table_path())} cannot be read: {problem}")


def checked_version(spark) -> int:
    """table_exists and table_version from one listing of the log: the newest version, -1 with no table."""
    problem, newest = log_look(table_path() / "_delta_log")
    return newest if exists_with(problem) else -1


def orders_table(spark):
    """orders_daily as a DataFrame, registered in this session's catalog under its name."""
    table = existing_table(spark)
    if table is None:
        raise ToolkitError(f"no Delta table at {shown(table_path())}: load a day first "
                           f"(python load_day.py RUN_DATE or python backfill.py FIRST LAST)")
    return table


def table_after_write(spark):
    """orders_table's frame right after this process committed to the table: the log it has just written
    is not looked at again (on a bucket, a listing), only the view made again in the table's layout now."""
    register_table(spark, refresh=True)
    return spark.table(TABLE)


def existing_table(spark):
    """orders_table's frame, or None while there is no table (yet)."""
    if not table_exists(spark):
        return None
    register_table(spark, refresh=True)  # in the table's layout now, whoever changed it since
    return spark.table(TABLE)


def register_table(spark, refresh: bool = False) -> None:
    """Point the name orders_daily at the table below the project root, for this session only.

    A temporary view, not a catalog table: the clients of one Spark Connect server share its catalog,
    so a table name there would be repointed by a client working in another folder. Each query on
    the view reads the table's newest commit, and `INSERT INTO orders_daily` writes to it; but the view
    keeps the layout it was made with, so once another process has partitioned the table its reads
    fail (FAILED_READ_FILE). refresh=True makes it again: orders_table does so at each use
    (tests/oracle/test_model_check.py)."""
    location = table_path().as_uri()
    if not refresh and spark.conf.get(LOCATION_KEY, "") == location:
        return
    spark.read.format("delta").load(str(table_path())).createOrReplaceTempView(TABLE)
    spark.conf.set(LOCATION_KEY, location)


def named_table(spark):
    """spark, with the name orders_daily pointing at the project root's table when it exists: what
    delta_session.delta_spark() returns. Where there is no table yet, a name left from another root
    is dropped, so that the name gives Spark's own TABLE_OR_VIEW_NOT_FOUND; the first load made in
    this session names it (orders_table). A damaged table is left unnamed: the script's first use
    of it says what is wrong, in its one line."""
    try:
        exists = table_exists(spark)
    except ToolkitError:
        exists = False
    if exists:
        register_table(spark, refresh=True)
    elif spark.conf.get(LOCATION_KEY, ""):
        spark.catalog.dropTempView(TABLE)
        spark.conf.unset(LOCATION_KEY)
    return spark


def table_sql_name() -> str:
    """orders_daily by its path, as SQL names it: delta.`/abs/lake/orders_daily`."""
    return "delta.`{}`".format(str(table_path()).replace("`", "``"))


def history_frame(spark, limit=None):
    """orders_daily's commits, newest first (DESCRIBE HISTORY: works in classic and Spark Connect)."""
    return spark.sql(f"DESCRIBE HISTORY {table_sql_name()}" + (f" LIMIT {int(limit)}" if limit else ""))


def table_at_version(spark, version: int):
    """orders_daily as it was at an earlier version (Delta time travel)."""
    return spark.read.format("delta").option("versionAsOf", version).load(str(table_path()))


def table_version(spark) -> int:
    """orders_daily's newest version: its log's newest commit, or DESCRIBE HISTORY's error without one."""
    newest = newest_commit(table_path() / "_delta_log")
    return newest if newest >= 0 else history_frame(spark, 1).first().version


def partition_new_table() -> bool:
    """True when SHOP_PARTITIONED=1: orders_daily's first write then partitions it by order_date."""
    return os.environ.get(PARTITIONED_ENV, "") == "1"


def new_table_layout(spark, writer):
    """The writer, partitioned by order_date if it creates the table and SHOP_PARTITIONED=1 (an
    existing table keeps its layout; python partition_table.py converts one); a writer that creates
    the table holds first_load.py's lock while it saves."""
    if table_exists(spark):
        return writer
    return CreatingWriter(writer.partitionBy(PARTITION_COLUMN) if partition_new_table() else writer)


def partition_columns(spark) -> list:
    """orders_daily's partition columns: [] or ['order_date'], from DESCRIBE TABLE's partition section: the
    table's metadata only (DESCRIBE DETAIL counts its files too, a job over the table's state after each
    commit: 0.23 s against 0.04 s on September's table)."""
    orders_table(spark)  # a clear error when there is no table
    names, section = [], False
    for row in spark.sql(f"DESCRIBE TABLE {table_sql_name()}").collect():
        if row.col_name == "# Partition Information":
            section = True
        elif section and row.col_name and not row.col_name.startswith("#"):
            names.append(row.col_name)
    return names

