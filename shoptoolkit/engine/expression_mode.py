"""Interpreted expressions while a run works on a day of a few orders; Spark's default otherwise, and
shuffles that follow the session's cores.

    @small_day_queries          # delta_session.py re-exports it and queries_for for the scripts
    def load_days(spark, run_dates):
        ...read, check and write the days...  # under COMPILED_FROM bytes: interpreted, then as before
                                              # from it on: two shuffle partitions a core, then as before
    with queries_for(spark, facts.size):      # the same, for a caller that knows the files' size
        ...

Spark compiles each query's expressions to Java (Janino) before it runs them. On a few rows the
compiling costs more than the work, and each day's literals make new code, so a long session
compiles again at every run. Interpreted, a small day's run is about a fifth faster; a day of a
million orders is twice as slow (docs/benchmarks.md, "Interpreted expressions"): it keeps the default.
The switch is spark.sql.codegen.factoryMode=NO_CODEGEN (internal to Spark 4.2) with whole-stage code
generation off. It is set for the run's own queries only and then unset, because
the interpreted path has gaps outside them: spark.catalog.listTables() fails with
EXPRESSION_DECODING_FAILED under it. A Databricks cluster's session is left as it is.

A session's shuffles take two partitions (spark_settings.py: a small day is a few rows, and adaptive
execution is off). A run of COMPILED_FROM bytes or more of files (a big day, a commit of many days) gets
two a core of the session's executors instead (spark_settings.session_cores: a cluster's, too) for its own
queries, and the session's number back after them.
"""
import functools
import os
from contextlib import contextmanager

from shoptoolkit.dates import day_loaded_by
from shoptoolkit.engine.spark_settings import session_cores
from shoptoolkit.storage.project_paths import files_bytes

SHUFFLE = "spark.sql.shuffle.partitions"
INTERPRETED = {"spark.sql.codegen.factoryMode": "NO_CODEGEN", "spark.sql.codegen.wholeStage": "false"}
# From this many bytes of day files (about 100,000 orders) a run keeps Spark's compiled expressions. Not a
# measured crossover: a few orders (interpreted a fifth faster) and a million (twice as slow) were measured.
COMPILED_FROM = 4_000_000


@contextmanager
def interpreted_for(spark, size: int):
    """Interpreted expressions for day files of fewer than COMPILED_FROM bytes, unset again on the way out
    (runs at once in one session may unset them early: that only costs the other run speed)."""
    if size >= COMPILED_FROM or os.environ.get("DATABRICKS_RUNTIME_VERSION"):
        yield
        return
    for key, value in INTERPRETED.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in INTERPRETED:
            spark.conf.unset(key)


@contextmanager
def shuffles_for(spark, size: int):
    """Two shuffle partitions a core of the session for day files of COMPILED_FROM bytes or more; the
    session's own number back on the way out."""
    if size < COMPILED_FROM or os.environ.get("DATABRICKS_RUNTIME_VERSION"):
        yield
        return
    before = spark.conf.get(SHUFFLE)
    spark.conf.set(SHUFFLE, str(2 * session_cores(spark)))
    try:
        yield
    finally:
        spark.conf.set(SHUFFLE, before)


@contextmanager
def queries_for(spark, size: int):
    """Inside, a run's queries on size bytes of day files: interpreted expressions under COMPILED_FROM
    bytes, two shuffle partitions a core from it on. For a caller that knows the size (load_day has
    read its file: on a bucket, a look at its size is a request)."""
    with interpreted_for(spark, size), shuffles_for(spark, size):
        yield


def small_day_queries(day_function):
    """day_function(spark, run_dates, ...) (one run date, or a list of them) inside queries_for the size
    of the files of the days it loads, looked at first."""
    @functools.wraps(day_function)
    def run(spark, run_dates, *args, **kwargs):
        dates = run_dates if isinstance(run_dates, (list, tuple)) else [run_dates]
        with queries_for(spark, files_bytes(day_loaded_by(run_date) for run_date in dates)):
            return day_function(spark, run_dates, *args, **kwargs)
    return run
