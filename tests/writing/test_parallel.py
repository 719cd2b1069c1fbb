"""Runs at once on real Delta: the unpartitioned table's write conflict, the partitioned table, retries.

The conflict is forced, not hoped for (tests/support/holding.py's first_loses): the first run's write is held
inside its transaction while the three others commit one by one, so exactly three win and the first loses.
"""
import re
import shutil
from functools import partial

import pytest

from backfill import backfill
from conftest import run_script, table_rows, table_version
from delta_session import partition_columns
from holding import first_loses
from shoptoolkit.dates import day_loaded_by, run_dates
from load_day import load_day, load_retrying
from parallel import one_try, run_at_once, summary
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


def test_runs_that_lose_the_race_change_nothing_and_a_rerun_loads_them(september, spark, monkeypatch):
    full, before = without_runs_days(spark)
    version = table_version(spark)
    monkeypatch.setattr("load_day.read_orders", first_loses(september / "hold", RUNS))
    results = run_at_once(spark, RUNS)
    won = [run_date for run_date, ok, _ in results if ok]
    lost = [run_date for run_date, ok, _ in results if not ok]
    assert won and lost, results
    assert (won, lost) == (RUNS[1:], RUNS[:1]), results  # the first held while the three others commit
    assert [line for _, ok, line in results if not ok] == [f"run {d} failed: {CONFLICT}" for d in lost]
    assert table_rows(spark) == sorted(before + days_of(full, won))
    assert table_version(spark) == version + len(won)
    for run_date in lost:
        load_day(spark, run_date)
    assert table_rows(spark) == full


def test_a_lost_conflict_is_retried_until_every_run_has_loaded(september, spark, monkeypatch):
    full, _ = without_runs_days(spark)
    retries = []
    monkeypatch.setattr("load_day.read_orders", first_loses(september / "hold", RUNS))
    results = run_at_once(spark, RUNS, load=partial(load_retrying, show=retries.append))
    assert [ok for _, ok, _ in results] == [True] * 4, results
    assert retries, "no run lost a conflict, so nothing was retried"
    for line in retries:
        assert re.fullmatch(rf"run 2026-09-0[2-5] lost a write conflict \({re.escape(CONFLICT)}\); "
                            r"attempt [2-8] of 8 in \d+\.\d s", line), line
    assert len(retries) == 1 and retries[0].startswith(f"run {RUNS[0]} lost a write conflict "), retries
    assert table_rows(spark) == full


def test_partitioned_runs_all_succeed_in_three_tries(days, spark):
    for _ in range(3):
        results, whole, where = one_try(spark, RUNS, partitioned=True)
        assert [line for _, ok, line in results if not ok] == []
        assert (whole, where) == (True, "experiments/partitioned/lake/orders_daily")
        assert (days / where / "order_date=2026-09-01").is_dir()  # a folder per day: partitioned
    assert not (days / "lake").exists()  # orders_daily itself was not touched


def test_partition_table_rewrites_in_one_commit_without_losing_a_row(september, spark):
    before, version = table_rows(spark), table_version(spark)
    assert partition_by_day(spark) == (f"orders_daily is now partitioned by order_date: version {version} -> "
                                       f"{version + 1}, 130 rows, the same as before")
    assert (table_rows(spark), table_version(spark)) == (before, version + 1)
    assert partition_columns(spark) == ["order_date"]
    assert load_day(spark, "2026-09-16") == "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130"
    assert table_rows(spark) == before
    assert partition_by_day(spark) == "orders_daily is already partitioned by order_date: nothing to do"


def test_parallel_backfill_into_a_new_partitioned_table_equals_the_sequential_one(
        september, spark, monkeypatch):
    runs = run_dates("2026-09-02", "2026-09-09")  # 8 of September's runs keep the test short
    sequential = days_of(table_rows(spark), runs)
    shutil.copytree(september / "landing", september / "parallel" / "landing")
    monkeypatch.chdir(september / "parallel")
    monkeypatch.setenv("SHOP_PARTITIONED", "1")
    lines = []
    failed, closing = backfill(spark, runs[0], runs[-1], show=lines.append, workers=4)
    assert (failed, closing) == ([], "ran 8 runs, 0 failed; orders_daily has 8 days, 33 orders")
    assert partition_columns(spark) == ["order_date"]
    assert table_rows(spark) == sequential
    assert len(lines) == 8 and all(re.fullmatch(r"run 2026-\d\d-\d\d loaded .*; ok .* \(\d+\.\d\d s\)", line)
                                    for line in lines), lines


@pytest.mark.parametrize("script, args, message", [
    ("backfill.py", ["2026-09-02", "2026-09-05", "--parallel", "0"], "--parallel must be 1 or more, not 0"),
    ("parallel.py", ["2026-09-02"], "give two run dates or more"),
    ("parallel.py", ["--tries", "-1"], "--tries must be 1 or more, not -1"),
])
def test_bad_parallel_arguments_are_usage_errors(tmp_path, script, args, message):
    result = run_script(script, *args, cwd=tmp_path)
    assert result.returncode == 2 and message in result.stderr and not (tmp_path / "lake").exists()


def test_parallel_script_on_a_fresh_september_prints_a_line_per_run(days):
    result = run_script("tests/support/holding.py", "--first-loses", "hold", "parallel.py", cwd=days)
    lines = result.stdout.splitlines()
    assert (result.returncode, result.stderr) == (0, ""), result
    assert lines[0] == "created orders_daily empty first, so that the runs do not race to create it"
    assert len(lines) == 6
    for run_date, line in zip(RUNS, lines[1:5]):
        assert (line == f"run {run_date} failed: {CONFLICT}"
                or re.fullmatch(rf"run {run_date} loaded {day_loaded_by(run_date)}: \d rows, "
                                r"orders_daily has \d+", line)), line
    won = sum(" loaded " in line for line in lines[1:5])
    assert 1 <= won < 4
    assert lines[5].startswith(f"{won} of 4 runs succeeded; orders_daily holds whole days only; "
                               "load the others with: python backfill.py 2026-09-0")
    assert lines[1] == f"run 2026-09-02 failed: {CONFLICT}" and won == 3  # held first, it alone lost
    assert lines[5] == ("3 of 4 runs succeeded; orders_daily holds whole days only; "
                        "load the others with: python backfill.py 2026-09-02 2026-09-02")


def test_summary_groups_the_tries_by_how_many_runs_succeeded():
    assert summary("partitioned", [4, 4, 4], 4) == "partitioned: 4 of 4 succeeded in 3 of 3 tries"
    assert summary("unpartitioned", [2, 1, 1], 4) == ("unpartitioned: 1 of 4 succeeded in 2 of 3 tries, "
                                                      "2 of 4 succeeded in 1 of 3 tries")
