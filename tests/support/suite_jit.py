"""The driver JVM of the suite's own lasting sessions (each pytest worker's, each script server's, the model
check's, the warm Connect servers the tests start): Java's C1 compiler alone, with the full-size code
cache that C2 would have had, and the serial garbage collector.

    from suite_jit import server_env, suite_session
    spark = suite_session("tests")       # delta_spark's session, its driver on C1 and the serial collector
    env = server_env(os.environ)         # for `python spark_server.py start`: its server's JVM the same

Through `make test` both cores are busy from start to end (docs/tests.md), so every second C2 spends
compiling, and G1 spends in its threads of its own, is taken from the tests themselves. Over the suite's
many small queries neither pays back. Seven in-session files on two workers (2026-12-07) took 892 CPU-s
and 483 s with Java's defaults, 796 CPU-s and 467 s on C1, 710 CPU-s and 431 s on C1 with the serial
collector. C1 alone gets a 48 MB code cache by default, which a lasting session fills and then sweeps
without end: hence the size. Only the suite's sessions are made so; a user's lasting session (a
notebook's, a month's backfill, a warm server's) keeps Java's full JIT as the toolkit decides, and
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


def server_env(env) -> dict:
    """env, with SPARK_SUBMIT_OPTS putting C1 and SUITE_JVM on the JVM of a warm Connect server started in
    it (`python spark_server.py start`: spark-submit adds that variable's options to its driver's). The
    product's server keeps Java's defaults, as a user's lasting session does. tests/engine/test_spark_server.py
    alone, one run each way (2026-12-07 18:35 UTC, load 1.4): 121 CPU-s of the machine's against 202 with
    Java's defaults, 102 s against 119 s."""
    from shoptoolkit.engine.spark_jvm import QUICK_JIT
    return {**env, "SPARK_SUBMIT_OPTS": f"{QUICK_JIT} {SUITE_JVM}"}
