"""Runs at once on real Delta: the unpartitioned table's write conflict, the partitioned table, retries."""
import re
import shutil
from functools import partial

import pytest

from backfill import backfill_parallel, load_retrying
from conftest import run_script, table_rows, table_version
from delta_session import day_loaded_by, partition_columns, run_dates
from load_day import load_day
from parallel import one_try, run_at_once, tries_lines
from partition_table import partition_by_day

RUNS = run_dates("2026-09-02", "2026-09-05")  # they load 2026-09-01 .. 2026-09-04
CONFLICT = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"


def without_runs_days(spark):
    """September's whole content, then the table with the four runs' days deleted, and its rows."""
    full = table_rows(spark)
    spark.sql("DELETE FROM orders_daily WHERE order_date BETWEEN '2026-09-01' AND '2026-09-04'")
    return full, table_rows(spark)


def days_of(rows, run_dates_) -> list:
    days = {day_loaded_by(run_date) for run_date in run_dates_}
    return [row for row in rows if row[-1] in days]


def test_runs_that_lose_the_race_change_nothing_and_a_rerun_loads_them(september, spark):
    full, before = without_runs_days(spark)
    version = table_version(spark)
    results = run_at_once(spark, RUNS)
    won = [run_date for run_date, ok, _ in results if ok]
    lost = [run_date for run_date, ok, _ in results if not ok]
    assert won and lost, results  # the barrier makes them race; at least one commits first
    assert [line for _, ok, line in results if not ok] == [f"run {d} failed: {CONFLICT}" for d in lost]
    assert table_rows(spark) == sorted(before + days_of(full, won))
    assert table_version(spark) == version + len(won)
    for run_date in lost:
        load_day(spark, run_date)
    assert table_rows(spark) == full


def test_a_lost_conflict_is_retried_until_every_run_has_loaded(september, spark):
    full, _ = without_runs_days(spark)
    retries = []
    results = run_at_once(spark, RUNS, load=partial(load_retrying, show=retries.append))
    assert [ok for _, ok, _ in results] == [True] * 4, results
    assert retries, "no run lost a conflict, so nothing was retried"
    for line in retries:
        assert re.fullmatch(rf"run 2026-09-0[2-5] lost a write conflict \({re.escape(CONFLICT)}\); "
                            r"attempt [2-5] of 5 in \d+\.\d s", line), line
    assert table_rows(spark) == full


def test_partitioned_runs_all_succeed_in_three_tries(days, spark):
    for _ in range(3):
        results, whole, where = one_try(spark, RUNS, partitioned=True)
        assert [line for _, ok, line in results if not ok] == []
        assert (whole, where) == (True, "experiments/partitioned/lake/orders_daily")
        assert (days / where / "order_date=2026-09-01").is_dir()  # a folder per day: partitioned
    assert not (days / "lake").exists()  # orders_daily itself was not touched
