"""The settings of every Spark session the toolkit starts itself: a script's own, the warm Connect
server's, a pipeline run's (docs/session.md says why each is set).

    from shoptoolkit.engine.spark_settings import SPARK_SETTINGS, master_settings
"""
import re

from shoptoolkit.places import LOG4J

# Set on every Databricks cluster: its Spark session, with Delta, exists before a task's script starts.
DATABRICKS_ENV = "DATABRICKS_RUNTIME_VERSION"

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
    # files in the log), two tasks to list the table's folders instead of 10,000 (VACUUM lists a
    # table's folders with it: docs/benchmarks.md).
    "spark.sql.shuffle.partitions": "2",
    "spark.databricks.delta.snapshotPartitions": "1",
    "spark.sql.sources.parallelPartitionDiscovery.parallelism": "2",
    # No adaptive query execution: it re-plans a query at each shuffle and runs every stage as a job
    # of its own, which for a run's tiny queries costs more than it finds (docs/benchmarks.md).
    "spark.sql.adaptive.enabled": "false",
    # Skip rebuilding the whole table state after every commit only to log statistics about it.
    "spark.databricks.delta.commitStats.collect": "false",
    # A write that adds and removes no file is still a commit: a header-only file loaded into a day with
    # no rows, a restore of days without rows. Delta would skip it, and the run's lineage (or the restore's
    # note) with it, though the script says it wrote; the model check found it (tests/oracle/test_model_check.py).
    "spark.databricks.delta.skipRecordingEmptyCommits": "false",
    "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile={LOG4J.as_uri()}",
}

# A local driver listens on loopback only, not on the machine's network address.
LOCAL_SETTINGS = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
# Masters whose executors run on this machine, so the driver can keep to loopback: local[*], local-cluster[..],
# a standalone master on 127.0.0.1 or localhost. A master elsewhere must reach the driver on the network.
LOOPBACK_MASTER = re.compile(r"local.*|spark://(127\.0\.0\.1|localhost)(:\d+)?")
# The cluster's shared secret (spark.authenticate): the same value the master and the workers were given.
AUTH_SECRET_ENV = "SPARK_AUTHENTICATE_SECRET"


def master_settings(master: str, env) -> dict:
    """Loopback for a driver whose executors are on this machine; spark.authenticate when
    SPARK_AUTHENTICATE_SECRET is set (a standalone cluster started with the same secret)."""
    settings = dict(LOCAL_SETTINGS) if LOOPBACK_MASTER.fullmatch(master) else {}
    if env.get(AUTH_SECRET_ENV):
        settings.update({"spark.authenticate": "true", "spark.authenticate.secret": env[AUTH_SECRET_ENV]})
    return settings


def session_cores(spark) -> int:
    """The executors' cores, as Spark counts them (local[*]: the machine's; a cluster: its workers')."""
    try:
        return spark.sparkContext.defaultParallelism
    except Exception:  # a Spark Connect session has no SparkContext: count two cores
        return 2
