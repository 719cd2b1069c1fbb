"""The one helper every script shares: a Spark session with Delta Lake, and the orders_daily table in it.

    from delta_session import delta_spark, orders_table
    spark = delta_spark("notebook")
    orders_table(spark).show()

The session is local[*], or on SPARK_MASTER's cluster, or a Spark Connect server's (SPARK_REMOTE), or
a Databricks cluster's own. The table lives below the project root (project_paths.py); its schema is
in table_schema.py. The scripts' other shared rules have a module each: run_args.py (run dates and
options), errors.py (one-line errors), conflicts.py, delta_log_check.py, spark_jvm.py.
"""
import os
import re

from delta_log_check import delta_log_problem
from errors import ToolkitError
from first_load import CreatingWriter, being_created
from project_paths import shown, spark_log, table_path
from spark_jvm import LOG4J, java_options, java_problem, jvm_output_to_log, with_delta_jars
from table_schema import PARTITION_COLUMN, TABLE

LOCATION_KEY = "shop.orders_daily.location"  # session setting: where this session's view points
# Set on every Databricks cluster: its Spark session, with Delta, exists before a task's script starts.
DATABRICKS_ENV = "DATABRICKS_RUNTIME_VERSION"
PARTITIONED_ENV = "SHOP_PARTITIONED"

SPARK_SETTINGS = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    # No Hive/Derby metastore: it admits one process. Each session registers the table itself.
    "spark.sql.catalogImplementation": "in-memory",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    # A day is a few rows: two shuffle partitions instead of 200 (two cores for a million-order day),
    # one partition for Delta's table state instead of 50 (a year of daily commits is a few hundred
    # files in the log), two tasks to list the table's folders instead of 10,000 (VACUUM of a 25-day
    # table: 36 s with 10,000, 4 s with two).
    "spark.sql.shuffle.partitions": "2",
    "spark.databricks.delta.snapshotPartitions": "1",
    "spark.sql.sources.parallelPartitionDiscovery.parallelism": "2",
    # No adaptive query execution: it re-plans a query at each shuffle and runs every stage as a job
    # of its own, which for a run's tiny queries costs more than it finds (measured: 11 Spark jobs a
    # run with it, 8 without; about 8% less time a run).
    "spark.sql.adaptive.enabled": "false",
    # Skip rebuilding the whole table state after every commit only to log statistics about it.
    "spark.databricks.delta.commitStats.collect": "false",
    "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J.as_uri()}",
}

# A local driver listens on loopback only, not on the machine's network address.
LOCAL_SETTINGS = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
# Masters whose executors run on this machine, so the driver can keep to loopback: local[*], local-cluster[..],
# a standalone master on 127.0.0.1 or localhost. A master elsewhere must reach the driver on the network.
LOOPBACK_MASTER = re.compile(r"local.*|spark://(127\.0\.0\.1|localhost)(:\d+)?")
# The cluster's shared secret (spark.authenticate): the same value the master and the workers were given.
AUTH_SECRET_ENV = "SPARK_AUTHENTICATE_SECRET"


def delta_spark(app_name: str, lasting: bool = False):
    """A SparkSession with Delta: local[*] unless SPARK_REMOTE (Spark Connect) or SPARK_MASTER is set
    (docs/cluster.md); SPARK_AUTHENTICATE_SECRET turns on spark.authenticate with that secret. A lasting
    session (spark_jvm.LASTING_RUNS runs or more) gets Java's full JIT in its own driver."""
    from pyspark.sql import SparkSession
    if os.environ.get("SPARK_REMOTE"):
        from connect_client import remote_session
        return remote_session(os.environ["SPARK_REMOTE"], app_name)
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if os.environ.get(DATABRICKS_ENV):  # the cluster's own session, Delta included; nothing to set up
        return SparkSession.builder.getOrCreate()
    return own_session(app_name, lasting)


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
        with jvm_output_to_log():
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


def master_settings(master: str, env) -> dict:
    """Loopback for a driver whose executors are on this machine; spark.authenticate when
    SPARK_AUTHENTICATE_SECRET is set (a standalone cluster started with the same secret)."""
    settings = dict(LOCAL_SETTINGS) if LOOPBACK_MASTER.fullmatch(master) else {}
    if env.get(AUTH_SECRET_ENV):
        settings.update({"spark.authenticate": "true", "spark.authenticate.secret": env[AUTH_SECRET_ENV]})
    return settings


def table_exists(spark) -> bool:
    """False only when lake/orders_daily does not exist at all (the first load creates it), or when
    another first load is writing it and its first commit has not landed yet (first_load.py).

    A folder there without a readable Delta log is an error, never a place to start a new table:
    a deleted or damaged _delta_log would otherwise be papered over by a table holding one day."""
    if not table_path().exists():
        return False
    problem = delta_log_problem(table_path() / "_delta_log")
    if problem and being_created():
        return False  # no commit yet: another first load is writing it (first_load.py)
    if problem:
        raise ToolkitError(f"table {shown(table_path())} cannot be read: {problem}")
    return True


def orders_table(spark):
    """orders_daily as a DataFrame, registered in this session's catalog under its name."""
    if not table_exists(spark):
        raise ToolkitError(f"no Delta table at {shown(table_path())}: load a day first "
                           f"(python load_day.py RUN_DATE or python backfill.py FIRST LAST)")
    register_table(spark)
    return spark.table(TABLE)


def register_table(spark, refresh: bool = False) -> None:
    """Point the name orders_daily at the table below the project root, for this session only.

    A temporary view, not a catalog table: the clients of one Spark Connect server share its catalog,
    so a table name there would be repointed by a client working in another folder. Each query on
    the view reads the table's newest commit; refresh=True rebuilds it after a new partitioning."""
    location = table_path().as_uri()
    if not refresh and spark.conf.get(LOCATION_KEY, "") == location:
        return
    spark.read.format("delta").load(str(table_path())).createOrReplaceTempView(TABLE)
    spark.conf.set(LOCATION_KEY, location)


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
    """orders_daily's newest version."""
    return history_frame(spark, 1).first().version


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
    """orders_daily's partition columns: [] or ['order_date']."""
    orders_table(spark)  # a clear error when there is no table
    return list(spark.sql(f"DESCRIBE DETAIL {table_sql_name()}").first().partitionColumns)

