"""A script's own Spark driver JVM: the class archive always, the quick JIT (C1 only) for a session of a
few commits, and Java's full JIT for a lasting one (a backfill of spark_jvm.LASTING_RUNS commits or more,
the suite's own session), where C2's faster code repays its compiling: delta_session.delta_spark decides."""
import datetime as dt

from backfill import commit_count
from shoptoolkit.jvm.spark_jvm import LASTING_RUNS, QUICK_JIT, archive_path, java_options, lasting


def test_a_short_session_keeps_the_quick_jit_and_a_lasting_one_has_the_full_jit():
    archive = f"-XX:SharedArchiveFile={archive_path()}"  # make setup builds it
    assert java_options().split() == [QUICK_JIT, archive]
    assert java_options(lasting=True).split() == [archive]


def test_a_backfill_lasts_from_fifteen_run_dates():
    first = dt.date(2026, 9, 2)
    assert LASTING_RUNS == 15
    assert commit_count(first, first + dt.timedelta(days=13)) == 14 and not lasting(14)
    assert commit_count(first, first + dt.timedelta(days=14)) == 15 and lasting(15)
    # with --days-per-commit the session lasts for its commits, not its runs
    assert commit_count(first, first + dt.timedelta(days=364), 0) == 1  # a year in one commit
    assert commit_count(first, first + dt.timedelta(days=364), 31) == 12 and not lasting(12)
    assert commit_count(first, first + dt.timedelta(days=29), 2) == 15


def test_the_suites_lasting_session_starts_its_driver_with_the_full_jit_and_the_archive(spark):
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    arguments = list(runtime.getInputArguments())
    assert f"-XX:SharedArchiveFile={archive_path()}" in arguments
    assert QUICK_JIT not in arguments
