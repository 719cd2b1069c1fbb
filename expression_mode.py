"""Interpreted expressions while a run works on a day of a few orders; Spark's default otherwise.

    from expression_mode import interpreted_for
    with interpreted_for(spark, found.count):   # under BIG_DAY orders: interpreted, then as before
        ...read, check and write the day...

Spark compiles each query's expressions to Java (Janino) before it runs them. On a few rows the
compiling costs more than the work, and each day's literals make new code, so a long session
compiles again at every run. Interpreted, a run (load + check) in one session took 1.64-1.70 s
instead of 2.13 s, and a cold `python load_day.py` 9.0 s instead of 10.6 s (2026-12-01, 2 cores, load
average 1.0 to 1.6, side by side). A day of a million orders is twice as slow interpreted (its load
33.6 s against 15.2 s): it keeps the default. The switch is spark.sql.codegen.factoryMode=NO_CODEGEN (internal to Spark 4.2) with
whole-stage code generation off. It is set for the run's own queries only and then unset, because
the interpreted path has gaps outside them: spark.catalog.listTables() fails with
EXPRESSION_DECODING_FAILED under it. A Databricks cluster's session is left as it is.
"""
import os
from contextlib import contextmanager

INTERPRETED = {"spark.sql.codegen.factoryMode": "NO_CODEGEN", "spark.sql.codegen.wholeStage": "false"}
# Not a measured crossover (a few rows and a million were measured): the size at which check_day
# also moves its comparison into Spark.
BIG_DAY = 100_000


@contextmanager
def interpreted_for(spark, orders: int):
    """Interpreted expressions for a day of fewer than BIG_DAY orders, unset again on the way out
    (runs at once in one session may unset them early: that only costs the other run speed)."""
    if orders >= BIG_DAY or os.environ.get("DATABRICKS_RUNTIME_VERSION"):
        yield
        return
    for key, value in INTERPRETED.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key in INTERPRETED:
            spark.conf.unset(key)
