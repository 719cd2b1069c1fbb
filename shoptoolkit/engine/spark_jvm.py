"""What a Spark JVM started here needs: Java 17+, Delta's JARs, the log4j config, the driver's JVM
options (class_archive.py's archive), and its console output kept out of the scripts' own lines.

    from shoptoolkit.engine.spark_jvm import java_problem, with_delta_jars
    problem = java_problem()      # '' when Java can run Spark
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from shoptoolkit.places import IVY_JARS, SHARE
from shoptoolkit.storage.parts import store_parts
from shoptoolkit.storage.project_paths import project_root, spark_log

LOG_STORE_CLASS = "shoptoolkit.AtomicLocalLogStore"
DUMP_ENV = "SHOP_CLASS_ARCHIVE_DUMP"  # set only in class_archive.py's child run that writes the archive
# A script's driver lives seconds to minutes on a few rows: the C1 compiler alone is enough, and C2's
# compile threads would take a core from the run on a small machine (docs/benchmarks.md, "The driver's JVM").
QUICK_JIT = "-XX:TieredStopAtLevel=1"
# A session for this many runs or more (a month's backfill, the test suite's) lasts long enough for
# C2's faster code to repay its compiling: it gets Java's full JIT (docs/session.md).
LASTING_RUNS = 15


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
    configure_spark_with_delta_pip, which downloads them from Maven Central and fills the cache.
    Also the toolkit's log store for file: paths, once log_store.py has built it."""
    store_jars, store_settings = log_store()
    for key, value in store_settings.items():
        builder = builder.config(key, value)
    jars = cached_delta_jars()
    if jars or store_jars:
        builder = builder.config("spark.jars", ",".join(jars + store_jars))
    if jars:
        return builder
    from delta import configure_spark_with_delta_pip
    return configure_spark_with_delta_pip(builder)


def log_store_jar() -> Path:
    """log_store.py's JAR of the toolkit's Delta log store, beside the class archive."""
    return archive_path().with_name(f"{LOG_STORE_CLASS.rsplit('.', 1)[1]}.jar")


def log_store() -> tuple:
    """([its JAR], {Delta's setting}) for the log store that commits safely when several processes write
    one table on a local disk (java/shoptoolkit/AtomicLocalLogStore.java); ([], {}) until it is built.
    When the project root is on an object store, also its connector and settings (storage/parts.py)."""
    if not log_store_jar().exists():
        return [], {}
    jars, settings = [str(log_store_jar())], {"spark.delta.logStore.file.impl": LOG_STORE_CLASS}
    parts = store_parts(project_root())
    if parts:
        store_jars, store_settings = parts.spark()
        jars, settings = jars + store_jars, {**settings, **store_settings}
    return jars, settings


def archive_path() -> Path:
    """class_archive.py's archive: beside the Python that runs the toolkit, named by the versions."""
    spark, delta = delta_versions()
    return SHARE / f"spark-{spark}-delta-{delta}.jsa"


def lasting(commits=None) -> bool:
    """A session lasts long enough for Java's full JIT to pay back when it is for LASTING_RUNS commits or
    more, when its caller did not say how many (a notebook's, a task's, a user's own script), and
    whatever it was told when a person works in it (interactive())."""
    return commits is None or commits >= LASTING_RUNS or interactive()


def interactive() -> bool:
    """This process is a Jupyter kernel, IPython or Python's own prompt (python, python -i): its session
    lasts as long as the person at it, whatever its first call said. IPython imported is not enough:
    pyspark imports it to name an error's call site; its shell (get_ipython()) runs only in IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None and hasattr(ipython, "get_ipython") else None
    return shell is not None or hasattr(sys, "ps1") or bool(sys.flags.interactive)


def java_options(lasting: bool = False) -> str:
    """The driver JVM options of a script's own Spark: the quick JIT unless the session is lasting
    (for LASTING_RUNS runs or more), and the archive when built."""
    if os.environ.get(DUMP_ENV):
        return f"{QUICK_JIT} -XX:ArchiveClassesAtExit={os.environ[DUMP_ENV]}"
    jit = "" if lasting else QUICK_JIT
    archive = archive_path()
    return f"{jit} -XX:SharedArchiveFile={archive}".strip() if archive.exists() else jit


class jvm_output_to_log:
    """Send the JVM's console output (Maven resolution, Java warnings) to logs/spark.log.

    The JVM inherits this process's stderr when it starts; pointing fd 2 at the log file for
    that moment keeps the scripts' terminal output to their own lines. SHOP_VERBOSE=1 keeps it all.
    fd=1 does the same for its stdout, where Delta prints some commands' own counts (VACUUM's
    `Deleted N files and directories ...`), never one of the scripts' lines.
    """

    def __init__(self, fd: int = 2):
        self.fd, self.stream = fd, sys.stdout if fd == 1 else sys.stderr

    def __enter__(self):
        self.saved = None
        if os.environ.get("SHOP_VERBOSE"):
            return self
        spark_log().parent.mkdir(parents=True, exist_ok=True)
        self.stream.flush()
        self.saved = os.dup(self.fd)
        with open(spark_log(), "a") as log:
            os.dup2(log.fileno(), self.fd)
        return self

    def __exit__(self, *exc):
        if self.saved is not None:
            self.stream.flush()
            os.dup2(self.saved, self.fd)
            os.close(self.saved)
        return False
