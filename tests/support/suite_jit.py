"""The driver JIT of the suite's own lasting sessions (each pytest worker's, each script server's, the model
check's): Java's C1 compiler alone, with the full-size code cache that C2 would have had.

    from suite_jit import suite_session
    spark = suite_session("tests")       # delta_spark's session, its driver on C1 with a 240 MB code cache

Through `make test` both cores are busy from start to end (docs/tests.md), so every second C2 spends
compiling is taken from the tests themselves. Over the suite's many small queries it does not pay back:
seven in-session files on two workers took 892 CPU-s and 483 s with Java's full JIT, 796 CPU-s and
467 s so (2026-12-07). C1 alone gets a 48 MB code cache by default, which a lasting session fills and then
sweeps without end: hence the size. Only the suite's sessions are made so; a user's lasting session (a
notebook's, a month's backfill) keeps Java's full JIT as delta_session.delta_spark decides, and
tests/course/test_notebook.py holds a kernel's session to that.
"""
from unittest import mock

C1_WITH_FULL_CODE_CACHE = "-XX:ReservedCodeCacheSize=240m"


def suite_session(app_name: str):
    """delta_spark(app_name)'s lasting session, its driver started on C1 with the full-size code cache."""
    import delta_session
    from shoptoolkit.engine.spark_jvm import LASTING_RUNS, java_options

    def suite_options(lasting: bool) -> str:
        return f"{java_options(lasting=False)} {C1_WITH_FULL_CODE_CACHE}"
    with mock.patch.object(delta_session, "java_options", suite_options):
        return delta_session.delta_spark(app_name, commits=LASTING_RUNS)
