"""A script's own Spark driver JVM: the class archive always, the quick JIT (C1 only) for a one-shot script
of a few commits, and Java's full JIT for a lasting session (a backfill of spark_jvm.LASTING_RUNS commits or
more, one whose caller gave no count, a kernel's or a prompt's), where C2's faster code repays its
compiling: delta_session.delta_spark decides. The suite's own sessions are C1's (support/suite_jit.py)."""
import datetime as dt
import subprocess
import sys

from backfill import commit_count
from conftest import ROOT
from shoptoolkit.engine.spark_jvm import LASTING_RUNS, QUICK_JIT, archive_path, java_options, lasting
from suite_jit import SUITE_JVM


def test_a_short_session_keeps_the_quick_jit_and_a_lasting_one_has_the_full_jit():
    archive = f"-XX:SharedArchiveFile={archive_path()}"  # make setup builds it
    assert java_options().split() == [QUICK_JIT, archive]
    assert java_options(lasting=True).split() == [archive]


def test_a_session_lasts_unless_its_caller_says_it_is_for_fewer_than_fifteen_commits():
    assert lasting() and lasting(None) and lasting(LASTING_RUNS)
    assert not lasting(0) and not lasting(1) and not lasting(LASTING_RUNS - 1)


def test_a_prompt_or_ipython_lasts_whatever_its_caller_said_and_a_script_does_not():
    ask = "from shoptoolkit.engine.spark_jvm import lasting; print('lasting', lasting(1))"
    prompt = subprocess.run([sys.executable, "-i"], input=ask + "\n", capture_output=True, text=True, cwd=ROOT)
    script = subprocess.run([sys.executable, "-c", ask], capture_output=True, text=True, cwd=ROOT)
    in_ipython = subprocess.run([sys.executable, "-m", "IPython", "--no-banner", "-c", ask], capture_output=True,
                                text=True, cwd=ROOT)
    ipython_imported = subprocess.run([sys.executable, "-c", "import IPython, ipykernel\n" + ask], capture_output=True,
                                      text=True, cwd=ROOT)  # as pyspark's error helpers import them
    assert (prompt.stdout, script.stdout, in_ipython.stdout.strip(), ipython_imported.stdout) == (
        "lasting True\n", "lasting False\n", "lasting True", "lasting False\n")


def test_a_backfill_lasts_from_fifteen_run_dates():
    first = dt.date(2026, 9, 2)
    assert LASTING_RUNS == 15
    assert commit_count(first, first + dt.timedelta(days=13)) == 14 and not lasting(14)
    assert commit_count(first, first + dt.timedelta(days=14)) == 15 and lasting(15)
    # with --days-per-commit the session lasts for its commits, not its runs
    assert commit_count(first, first + dt.timedelta(days=364), 0) == 1  # a year in one commit
    assert commit_count(first, first + dt.timedelta(days=364), 31) == 12 and not lasting(12)
    assert commit_count(first, first + dt.timedelta(days=29), 2) == 15


def test_the_suites_session_starts_its_driver_on_c1_with_the_serial_collector_and_the_archive(spark):
    """The suite's own choice (support/suite_jit.py); a kernel's lasting session has the full JIT
    (tests/course/test_notebook.py)."""
    runtime = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean()
    arguments = list(runtime.getInputArguments())
    assert f"-XX:SharedArchiveFile={archive_path()}" in arguments
    assert QUICK_JIT in arguments and set(SUITE_JVM.split()) <= set(arguments)
