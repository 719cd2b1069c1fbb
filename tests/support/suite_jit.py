"""The driver JVM of the suite's own lasting sessions (each pytest worker's, each script server's, the model
check's): Java's C1 compiler alone, with the full-size code cache that C2 would have had, and the serial
garbage collector.

    from suite_jit import suite_session
    spark = suite_session("tests")       # delta_spark's session, its driver on C1 and the serial collector

Through `make test` both cores are busy from start to end (docs/tests.md), so every second C2 spends
compiling, and G1 spends in its threads of its own, is taken from the tests themselves. Over the suite's
many small queries neither pays back. Seven in-session files on two workers (2026-12-07) took 892 CPU-s
and 483 s with Java's defaults, 796 CPU-s and 467 s on C1, 710 CPU-s and 431 s on C1 with the serial
collector. C1 alone gets a 48 MB code cache by default, which a lasting session fills and then sweeps
without end: hence the size. Only the suite's sessions are made so; a user's lasting session (a
notebook's, a month's backfill) keeps Java's full JIT as delta_session.delta_spark decides, and
tests/course/test_notebook.py holds a kernel's session to that.
"""
from unittest import mock

SUITE_JVM = "-XX:ReservedCodeCacheSize=240m -XX:+UseSerialGC"


def suite_session(app_name: str):
    """delta_spark(app_name)'s lasting session, its driver started on C1 (spark_jvm.QUICK_JIT) with SUITE_JVM."""
    import delta_session
    from shoptoolkit.engine.spark_jvm import LASTING_RUNS, java_options

    def suite_options(lasting: bool) -> str:
        return f"{java_options(lasting=False)} {SUITE_JVM}"
    with mock.patch.object(delta_session, "java_options", suite_options):
        return delta_session.delta_spark(app_name, commits=LASTING_RUNS)
