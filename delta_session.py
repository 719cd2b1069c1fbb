"""The one helper every script shares: a Spark session with Delta Lake, the paths, the run-date rules.

    from delta_session import delta_spark, orders_table
    spark = delta_spark("notebook")
    orders_table(spark).show()

Everything lives below the project root: landing/orders/ for the till's files, lake/orders_daily/
for the Delta table, logs/. The root is the folder you run in, or SHOP_ROOT, or a script's --root
DIR (set_root(DIR) in a notebook): any absolute path, a Unity Catalog Volume's /Volumes/... too.
Paths are made absolute here because the JVM's working directory is not the root.
"""
import argparse
import datetime as dt
import json
import os
import re
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

TABLE = "orders_daily"
LANDING = Path("landing") / "orders"
LAKE = Path("lake")
LOGS = Path("logs")
LOG4J = Path(__file__).resolve().parent / "log4j2.properties"
COLUMNS = ("order_id", "customer_id", "amount", "ordered_at")
MAX_RUNS = 366
# Where Spark 4's --packages (spark.jars.packages) keeps the JARs it has downloaded.
IVY_JARS = Path.home() / ".ivy2.5.2" / "jars"
LOCATION_KEY = "shop.orders_daily.location"  # session setting: where this session's view points
ROOT_ENV = "SHOP_ROOT"
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
    # A day is a few rows: two partitions instead of 200 shuffle / 50 Delta snapshot partitions.
    "spark.sql.shuffle.partitions": "2",
    "spark.databricks.delta.snapshotPartitions": "2",
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


class ToolkitError(Exception):
    """A problem the user can fix, told in one line; scripts print it and exit 1."""


def project_root() -> Path:
    """The folder landing/, lake/ and logs/ live below: SHOP_ROOT, else the folder you run in."""
    return Path(os.environ.get(ROOT_ENV) or Path.cwd()).resolve()


def set_root(folder) -> Path:
    """Make folder the project root of this process, and of the processes it starts (SHOP_ROOT)."""
    os.environ[ROOT_ENV] = str(Path(folder).resolve())
    return project_root()


@contextmanager
def root_at(folder):
    """Work below folder for a while (an experiment, a warm-up), then below the root as it was."""
    before = os.environ.get(ROOT_ENV)
    try:
        yield set_root(folder)
    finally:
        if before is None:
            os.environ.pop(ROOT_ENV, None)
        else:
            os.environ[ROOT_ENV] = before


def landing_dir() -> Path:
    return project_root() / LANDING


def table_path() -> Path:
    return project_root() / LAKE / TABLE


def day_file(day) -> Path:
    return landing_dir() / f"{day}.csv"


def shown(path: Path) -> str:
    """A path as the user knows it: relative to the project root (by default the folder they run in)."""
    try:
        return str(Path(path).relative_to(project_root()))
    except ValueError:
        return str(path)


def parse_date(text: str) -> dt.date:
    """An ISO date (YYYY-MM-DD) for argparse; anything else is a usage error."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text or ""):
        raise argparse.ArgumentTypeError(f"{text!r} is not a date in the form YYYY-MM-DD")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a calendar date") from None


def parse_month(text: str) -> dt.date:
    """A month (YYYY-MM) for argparse, as the date of its first day."""
    if not re.fullmatch(r"\d{4}-\d{2}", text or "") or not 1 <= int(text[5:]) <= 12:
        raise argparse.ArgumentTypeError(f"{text!r} is not a month in the form YYYY-MM")
    return dt.date.fromisoformat(f"{text}-01")


def day_loaded_by(run_date) -> dt.date:
    """A run on date D loads day D-1."""
    return as_date(run_date) - dt.timedelta(days=1)


def as_date(value) -> dt.date:
    """A date from a date or an ISO string, for functions called from a notebook or a test."""
    if isinstance(value, dt.date):
        return value
    try:
        return parse_date(str(value))
    except argparse.ArgumentTypeError as error:
        raise ToolkitError(str(error)) from None


def run_dates(first, last) -> list:
    first, last = as_date(first), as_date(last)
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


def check_range(parser, first, last, allow_long: bool) -> None:
    """FIRST after LAST, or more than a year of runs without --allow-long, is a usage error."""
    if first > last:
        parser.error(f"FIRST {first} is after LAST {last}")
    runs = (last - first).days + 1
    if runs > MAX_RUNS and not allow_long:
        parser.error(f"{runs} runs is more than a year ({MAX_RUNS}); add --allow-long to confirm")


def add_verbose(parser) -> None:
    parser.add_argument("--verbose", action="store_true",
                        help="show Spark's full error trace (or set SHOP_VERBOSE=1)")


class RootOption(argparse.Action):
    """--root DIR sets the project root as it is parsed, so every path the script makes follows it."""

    def __call__(self, parser, namespace, value, option_string=None):
        if not Path(value).is_dir():
            parser.error(f"argument --root: {value!r} is not a folder")
        setattr(namespace, self.dest, set_root(value))


def add_root(parser) -> None:
    parser.add_argument("--root", metavar="DIR", action=RootOption,
                        help="the folder holding landing/, lake/ and logs/ (or set SHOP_ROOT; "
                             "default: the current folder)")


def java_problem() -> str:
    """Why Java cannot run Spark here, or '' when it can (Spark 4 needs Java 17 or newer)."""
    home = os.environ.get("JAVA_HOME")
    java = str(Path(home) / "bin" / "java") if home else shutil.which("java")
    if not java or not Path(java).exists():
        return "no Java found: Spark needs Java 17 or 21 (install it, or set JAVA_HOME)"
    out = subprocess.run([java, "-version"], capture_output=True, text=True).stderr
    found = re.search(r'version "(\d+)', out)
    if not found or int(found.group(1)) < 17:
        return f"{java} is not Java 17 or newer: Spark 4 needs Java 17 or 21 (set JAVA_HOME)"
    return ""


def delta_spark(app_name: str):
    """A SparkSession with Delta: local[*] unless SPARK_REMOTE (Spark Connect) or SPARK_MASTER is set
    (docs/cluster.md); SPARK_AUTHENTICATE_SECRET turns on spark.authenticate with that secret."""
    from pyspark.sql import SparkSession
    if os.environ.get("SPARK_REMOTE"):
        problem = remote_problem(os.environ["SPARK_REMOTE"])
        if problem:
            raise ToolkitError(problem)
        return SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).appName(app_name).getOrCreate()
    active = SparkSession.getActiveSession()
    if active is not None:
        return active
    if os.environ.get(DATABRICKS_ENV):  # the cluster's own session, Delta included; nothing to set up
        return SparkSession.builder.getOrCreate()
    problem = java_problem()
    if problem:
        raise ToolkitError(problem)
    master = os.environ.get("SPARK_MASTER", "local[*]")
    builder = SparkSession.builder.master(master).appName(app_name)
    from class_archive import java_options
    settings = {**SPARK_SETTINGS, **master_settings(master, os.environ)}
    settings["spark.driver.extraJavaOptions"] += f" {java_options()}"
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


def delta_versions() -> tuple:
    """(Spark's major.minor, delta-spark's version) as installed, e.g. ('4.2', '4.4.0')."""
    from importlib.metadata import version
    return ".".join(version("pyspark").split(".")[:2]), version("delta-spark")


def delta_package() -> str:
    """The Maven coordinates of Delta's JAR for the installed pair."""
    spark, delta = delta_versions()
    return f"io.delta:delta-spark_{spark}_2.13:{delta}"


def cached_delta_jars() -> list:
    """Delta's two JARs in Spark's Ivy cache, once a first start has downloaded them; [] before."""
    spark, delta = delta_versions()
    jars = IVY_JARS / f"io.delta_delta-spark_{spark}_2.13-{delta}.jar", IVY_JARS / f"io.delta_delta-storage-{delta}.jar"
    return [str(jar) for jar in jars] if all(jar.exists() for jar in jars) else []


def with_delta_jars(builder):
    """Delta's JARs for a new session: straight from the cache when they are there, which skips
    resolving them through Ivy at every start (a second or two); else through delta-spark's
    configure_spark_with_delta_pip, which downloads them from Maven Central and fills the cache."""
    jars = cached_delta_jars()
    if jars:
        return builder.config("spark.jars", ",".join(jars))
    from delta import configure_spark_with_delta_pip
    return configure_spark_with_delta_pip(builder)


def remote_problem(url: str) -> str:
    """Why nothing answers at SPARK_REMOTE's host and port, or '' (the client would retry for minutes)."""
    found = re.match(r"sc://([^/:;]+):(\d+)", url)
    if not found:
        return ""
    try:
        socket.create_connection((found.group(1), int(found.group(2))), timeout=2).close()
        return ""
    except OSError:
        return (f"no Spark Connect server answers at {found.group(0)} (SPARK_REMOTE): start one with "
                f'eval "$(python spark_server.py start)", or unset SPARK_REMOTE to run Spark in this process')


def spark_log() -> Path:
    return project_root() / LOGS / "spark.log"


class jvm_output_to_log:
    """Send the JVM's console output (Maven resolution, Java warnings) to logs/spark.log.

    The JVM inherits this process's stderr when it starts; pointing fd 2 at the log file for
    that moment keeps the scripts' terminal output to their own lines. SHOP_VERBOSE=1 keeps it all.
    """

    def __enter__(self):
        self.saved = None
        if os.environ.get("SHOP_VERBOSE"):
            return self
        spark_log().parent.mkdir(parents=True, exist_ok=True)
        sys.stderr.flush()
        self.saved = os.dup(2)
        with open(spark_log(), "a") as log:
            os.dup2(log.fileno(), 2)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            sys.stderr.flush()
            os.dup2(self.saved, 2)
            os.close(self.saved)
        return False


def table_exists(spark) -> bool:
    """False only when lake/orders_daily does not exist at all (the first load creates it).

    A folder there without a readable Delta log is an error, never a place to start a new table:
    a deleted or damaged _delta_log would otherwise be papered over by a table holding one day."""
    if not table_path().exists():
        return False
    problem = delta_log_problem(table_path() / "_delta_log")
    if problem:
        raise ToolkitError(f"table {shown(table_path())} cannot be read: {problem}")
    return True


def delta_log_problem(log: Path) -> str:
    """Why the Delta log cannot be read, or '': no commit at all, or a commit Delta would read is not JSON."""
    commits = sorted(path for path in log.glob("*.json") if re.fullmatch(r"\d{20}\.json", path.name))
    if not commits:
        return (f"no commits in {shown(log)}; restore it from a backup, or delete the folder "
                f"if its first load was interrupted")
    checkpoints = [int(path.name[:20]) for path in log.glob("[0-9]*.checkpoint*.parquet")]
    newest_checkpoint = max(checkpoints, default=-1)
    for path in commits:
        if int(path.name[:20]) > newest_checkpoint:
            problem = not_json_line(path)
            if problem:
                return f"commit {shown(path)} {problem} (damaged); restore it from a backup"
    return ""


def not_json_line(path: Path) -> str:
    """'line N is not JSON' for the first line of path that does not parse, or ''."""
    with open(path, "rb") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                if line.strip():
                    json.loads(line)
            except ValueError:
                return f"line {number} is not JSON"
    return ""


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


def one_line(error: BaseException) -> str:
    """A Spark/Delta error as one line: its error class and the first line of its message."""
    if isinstance(error, ToolkitError):
        return str(error)
    refused = connect_refusal(str(error))
    if refused:
        return refused
    text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    if hasattr(error, "java_exception"):  # a Py4JJavaError says only "An error occurred while calling o60"
        text = str(error.java_exception.toString()).strip().splitlines()[0]
    return f"{type(error).__name__}: {text[:300]}"


def connect_refusal(text: str) -> str:
    """A Spark Connect call the server refused (its gRPC status and details) as one line, else ''."""
    found = GRPC_STATUS.search(text)
    if not found:
        return ""
    status, details = found.groups()
    hint = ("; SPARK_REMOTE needs the server's token (python spark_server.py env prints it)"
            if status == "UNAUTHENTICATED" else "")
    return f"Spark Connect refused the request ({status}): {details}{hint}"


def run_main(main_body, verbose: bool) -> int:
    """Run a script's work: one line and exit 1 on any error, the full trace with --verbose."""
    verbose = verbose or bool(os.environ.get("SHOP_VERBOSE"))
    try:
        return main_body()
    except Exception as error:
        if verbose:
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 1


PARTITIONED_ENV = "SHOP_PARTITIONED"
PARTITION_COLUMN = "order_date"
GRPC_STATUS = re.compile(r'status = StatusCode\.(\w+)\s+details = "([^"]*)"')
ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")


def partition_new_table() -> bool:
    """True when SHOP_PARTITIONED=1: orders_daily's first write then partitions it by order_date."""
    return os.environ.get(PARTITIONED_ENV, "") == "1"


def new_table_layout(spark, writer):
    """The writer partitioned by order_date when it creates the table and SHOP_PARTITIONED=1.

    An existing table keeps the layout it has (python partition_table.py converts one)."""
    if partition_new_table() and not table_exists(spark):
        return writer.partitionBy(PARTITION_COLUMN)
    return writer


def partition_columns(spark) -> list:
    """orders_daily's partition columns: [] or ['order_date']."""
    orders_table(spark)  # a clear error when there is no table
    return list(spark.sql(f"DESCRIBE DETAIL {table_sql_name()}").first().partitionColumns)


def error_class(error: BaseException) -> str:
    """A Spark or Delta error's class, e.g. DELTA_CONCURRENT_APPEND.WITHOUT_HINT; '' if it has none.

    getCondition() where it answers (Spark 4, classic and Connect), else the bracketed class in
    the message: Delta's exceptions, as classic PySpark wraps them, answer None to getCondition()."""
    condition = getattr(error, "getCondition", None)
    found = condition() if callable(condition) else None
    if found:
        return found
    match = ERROR_CLASS.search(str(error))
    return match.group(1) if match else ""


# Delta's conflicts where the losing commit landed nothing and read files another writer changed:
# ConcurrentAppendException (the usual one: the winner added files this write should have read), and
# ConcurrentDeleteRead/DeleteDelete (the winner removed files this write read or removes too, as a
# restore that empties a day does).
WRITE_CONFLICTS = ("DELTA_CONCURRENT_APPEND", "DELTA_CONCURRENT_DELETE_READ", "DELTA_CONCURRENT_DELETE_DELETE")


def is_write_conflict(error: BaseException) -> bool:
    """A lost race with another writer that a retry can win (retry.py)."""
    return error_class(error).startswith(WRITE_CONFLICTS)
