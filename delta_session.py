"""The one helper every script shares: a Spark session with Delta Lake, and the orders_daily table in it.

    from delta_session import delta_spark, orders_table, set_root
    set_root("/Volumes/shop/course/files")   # once, in a notebook, when the data lives elsewhere
    spark = delta_spark("notebook")
    orders_table(spark).show()

The session is local[*], or on SPARK_MASTER's cluster, or a Spark Connect server's (SPARK_REMOTE), or
a Databricks cluster's own. The table lives below the project root (set_root, SHOP_ROOT or the folder
you run in). The helper also owns how the JVM runs a script's work (docs/session.md): a session that
lasts gets Java's full JIT, and a day function marked @small_day_queries (or a block in
queries_for) runs a small day's queries with interpreted expressions. The machinery is in the package
shoptoolkit/ (the JVM's in shoptoolkit/engine/); a reader of the scripts can skip it.
"""
import os

from shoptoolkit.errors import ToolkitError
from shoptoolkit.engine.expression_mode import queries_for, small_day_queries
from shoptoolkit.engine.spark_jvm import java_options, java_problem, jvm_output_to_log, lasting, with_delta_jars
from shoptoolkit.storage.project_paths import BIG_FILES, day_file, files_bytes, project_root, set_root, shown, spark_log
from shoptoolkit.engine.spark_settings import AUTH_SECRET_ENV, DATABRICKS_ENV, SPARK_SETTINGS, master_settings
from shoptoolkit.table.delta_table import (TABLE, history_frame, named_table, new_table_layout, orders_table,
                                           partition_columns, partition_new_table, register_table, table_at_version,
                                           table_exists, table_sql_name, table_version)

# What the scripts and a notebook take from here: the session, the table's helpers (shoptoolkit/table/delta_table.py),
# the project root and its day files (shoptoolkit/storage/project_paths.py), and the day functions' decorator.
__all__ = ["delta_spark", "day_file", "project_root", "set_root", "queries_for", "small_day_queries", "TABLE",
           "history_frame", "new_table_layout", "orders_table", "partition_columns", "partition_new_table",
           "register_table", "table_at_version", "table_exists", "table_sql_name", "table_version"]


def delta_spark(app_name: str, commits=None, days=()):
    """A SparkSession with Delta: local[*] unless SPARK_REMOTE (Spark Connect) or SPARK_MASTER is set
    (docs/cluster.md); SPARK_AUTHENTICATE_SECRET turns on spark.authenticate with that secret.

    The driver's JIT is chosen here, once for the JVM's life (docs/session.md). Left out, commits means a
    session that lasts (a notebook's, a task's, your own script's): Java's full JIT, which makes every
    big query faster. A one-shot script says how many commits it will write (load_day.py 1, check_day.py
    0, a backfill its count) and keeps the quick start of Java's C1 compiler alone, unless that is
    spark_jvm.LASTING_RUNS or more, or the files of its days hold project_paths.BIG_FILES bytes or more,
    or the process is a Jupyter kernel, IPython or Python's prompt (spark_jvm.interactive).

    In the session it returns, the name orders_daily is the table below the project root whenever
    the table exists (spark.table("orders_daily"), spark.sql("... FROM orders_daily")), at its newest
    commit at each query; calling it again names the table of the root set since."""
    return named_table(session(app_name, lasting(commits) or files_bytes(days) >= BIG_FILES))


def session(app_name: str, full_jit: bool):
    from pyspark.sql import SparkSession
    if os.environ.get("SPARK_REMOTE"):
        from shoptoolkit.engine.connect_client import remote_session
        return remote_session(os.environ["SPARK_REMOTE"], app_name)
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if os.environ.get(DATABRICKS_ENV):  # the cluster's own session, Delta included; nothing to set up
        return SparkSession.builder.getOrCreate()
    return own_session(app_name, full_jit)


def own_session(app_name: str, lasting: bool = False):
    """A new session whose driver runs in this process, on local[*] or SPARK_MASTER's cluster."""
    from pyspark.sql import SparkSession
    if java_problem():
        raise ToolkitError(java_problem())
    master = os.environ.get("SPARK_MASTER", "local[*]")
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = {**SPARK_SETTINGS, **master_settings(master, os.environ)}
    settings["spark.driver.extraJavaOptions"] += f" {java_options(lasting)}"
    for key, value in settings.items():
        builder = builder.config(key, value)
    builder = with_delta_jars(builder)
    try:
        with jvm_output_to_log(), jvm_output_to_log(fd=1):  # the JVM's stdout too: Delta's VACUUM prints
            return builder.getOrCreate()
    except Exception as error:
        raise ToolkitError(start_failure(master, error)) from error


def start_failure(master: str, error: BaseException) -> str:
    """Why a session may not have started: Delta's first download, or, on a cluster, the master or its secret."""
    if master.startswith("local"):
        where, hint = "", "its first start downloads Delta's JARs from Maven Central;"
    else:
        where, hint = f" on {master}", f"is the master up, and {AUTH_SECRET_ENV} its secret if it has one?"
    return f"Spark with Delta did not start{where} ({type(error).__name__}); {hint} see {shown(spark_log())}"
