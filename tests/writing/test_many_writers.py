"""Writers in separate processes (own JVMs) on one unpartitioned orders_daily: each write is held inside
its Delta transaction and released together with the others, so they really conflict; the losers retry
and land, and a writer whose attempts all lose says so in one line, exit 1, with the table whole."""
import datetime as dt
import json
import os
import re
import subprocess
import sys

import pytest

from check_day import check_day
from check_month import check_month
from shoptoolkit.dates import day_loaded_by
from shoptoolkit.till.in_python import read_day_file, read_orders
from conftest import LATE_ORDER, ROOT, SEP_15, append_line, table_rows, table_version
from holding import RoundWriter, ended_processes, release, start_round, wait_held
from load_day import load_day

pytestmark = pytest.mark.timeout(1200)  # writer processes, each a JVM: over 2 minutes for the longest in CI

CONFLICT = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
FIRST_CONFLICT = "DELTA_PROTOCOL_CHANGED"  # two first loads: the winner's version 0 created the table
HELD_WRITE = ROOT / "tests" / "support" / "holding.py"
SEPTEMBER_OK = "ok 2026-09: all 30 days match their files, 130 orders"


def start_held(hold, run_date, cwd, **env):
    """python load_day.py RUN_DATE in its own process, its write held until release(hold)."""
    return subprocess.Popen([sys.executable, str(HELD_WRITE), str(hold), "load_day.py", str(run_date)], cwd=cwd,
                            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def writers_at_once(run_dates, folder, hold="hold") -> list:
    """Start a held load_day.py per run date in folder, wait until every write is held, release them
    together; return each process's (exit code, stdout lines, stderr)."""
    hold = folder / hold
    hold.mkdir()
    processes = [start_held(hold, run_date, folder) for run_date in run_dates]
    try:
        wait_held(hold, len(processes), ended_processes(processes))
        release(hold)
        return [(process.wait(timeout=600), *outputs(process)) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()


def outputs(process) -> tuple:
    out, err = process.communicate()
    return out.splitlines(), err


def loaded_after_retries(lines, run_date, conflict=CONFLICT) -> bool:
    """Retry lines (any number) then the load's line, as load_day.py prints them."""
    *retries, last = lines
    return (all(re.fullmatch(rf"run {run_date} lost a write conflict \({conflict}\); attempt [2-8] of 8 in \d+\.\d s",
                             line) for line in retries)
            and re.fullmatch(rf"run {run_date} loaded {day_loaded_by(run_date)}: \d+ rows, orders_daily has \d+", last))


def test_two_processes_for_different_days_then_for_the_same_day_both_succeed_each_time(september, spark):
    """Two writer processes (RoundWriter: one JVM each for both rounds). First round: a day each; second
    round: both the same day, which then holds its rows once."""
    before = table_rows(spark)
    append_line(SEP_15, LATE_ORDER)
    append_line(dt.date(2026, 9, 20), "2132,C03,4.50,2026-09-20T21:30:00")
    different, same = september / "different_days", september / "same_day"
    writers = [RoundWriter([(different, run_date), (same, "2026-09-16")], september)
               for run_date in ("2026-09-16", "2026-09-21")]
    try:
        results = held_round(different, writers)
        for (code, lines), run_date in zip(results, ["2026-09-16", "2026-09-21"]):
            assert code == 0 and loaded_after_retries(lines, run_date), lines
        assert sorted(len(lines) for _, lines in results) == [1, 2]  # held together: one lost, then landed
        after = table_rows(spark)
        assert [row for row in after if row[0] not in (2131, 2132)] == before
        assert [row[:2] for row in after if row[0] in (2131, 2132)] == [(2131, "C02"), (2132, "C03")]

        others = [row for row in after if row[4] != SEP_15]
        append_line(SEP_15, "2133,C04,7.25,2026-09-15T21:10:00")
        results = held_round(same, writers)
        assert all(code == 0 and loaded_after_retries(lines, "2026-09-16") for code, lines in results), results
        assert sorted(len(lines) for _, lines in results) == [1, 2]
        assert [row[0] for row in table_rows(spark, SEP_15)] == [2059, 2060, 2061, 2131, 2133]
        assert check_day(spark, "2026-09-16") == (True, "ok 2026-09-15: 5 rows for the file's 5 orders, 0 missing")
        assert [row for row in table_rows(spark) if row[4] != SEP_15] == others
        assert [(w.process.wait(timeout=60), w.process.stderr.read()) for w in writers] == [(0, "")] * 2
    finally:
        for writer in writers:
            if writer.process.poll() is None:
                writer.process.kill()


def held_round(hold, writers) -> list:
    """Start the writers' round on hold, wait until each write is held, release them together; each
    writer's (exit code, lines)."""
    start_round(hold, writers)
    release(hold)
    return [writer.round_result() for writer in writers]


def log_actions(table) -> list:
    """Each commit of the table's log, in order: the kinds of its actions (protocol, metaData, add, ...)."""
    return [[next(iter(json.loads(line))) for line in path.read_text().splitlines()]
            for path in sorted((table / "_delta_log").glob("*.json"))]


def test_two_first_loads_at_once_make_one_table_and_both_days_land_whole(days, spark):
    """No table yet: both writes are held inside their transactions (each read no table) and released
    together, so both try to create it as version 0. One does; the other loses a write conflict,
    retries into the table the winner made, and lands."""
    results = writers_at_once(["2026-09-02", "2026-09-03"], days)
    assert all(code == 0 and err == "" for code, _, err in results), results
    assert sorted(len(lines) for _, lines, _ in results) == [1, 2], results  # one lost, then landed
    assert all(loaded_after_retries(lines, run_date, FIRST_CONFLICT)
               for (_, lines, _), run_date in zip(results, ["2026-09-02", "2026-09-03"])), results
    first, second = log_actions(days / "lake" / "orders_daily")
    assert (first.count("protocol"), first.count("metaData"), "protocol" in second, "metaData" in second) == (
        1, 1, False, False)  # one table: created once, the retry only added its day
    in_files = [row for day in (dt.date(2026, 9, 1), dt.date(2026, 9, 2))
                for row in read_orders(spark, read_day_file(day), day).collect()]
    assert table_rows(spark) == sorted(tuple(row) for row in in_files)  # each day's file, row for row
    assert [check_day(spark, run_date)[0] for run_date in ("2026-09-02", "2026-09-03")] == [True, True]


def test_four_processes_three_tries_lose_no_run_and_leave_no_partial_day(september, spark):
    """Four writer processes, each making one write a try; in each try the four writes are released
    together, so three of them lose at least once and retry."""
    full = table_rows(spark)
    tries = [(september / f"hold{number}", [dt.date(2026, 9, first + i) for i in range(4)])
             for number, first in enumerate((2, 10, 20))]
    writers = [RoundWriter([(hold, days[w] + dt.timedelta(days=1)) for hold, days in tries], september)
               for w in range(4)]
    try:
        for hold, days in tries:
            spark.sql(f"DELETE FROM orders_daily WHERE order_date BETWEEN '{days[0]}' AND '{days[-1]}'")
            results = held_round(hold, writers)
            assert [code for code, _ in results] == [0] * 4, results
            assert all(loaded_after_retries(lines, day + dt.timedelta(days=1)) for (_, lines), day in zip(results, days))
            assert sum(len(lines) - 1 for _, lines in results) >= 3  # released together: 3 lost at least once
            assert check_month(spark, "2026-09") == (True, [SEPTEMBER_OK])
            assert table_rows(spark) == full
        assert [(w.process.wait(timeout=60), w.process.stderr.read()) for w in writers] == [(0, "")] * 4
    finally:
        for writer in writers:
            if writer.process.poll() is None:
                writer.process.kill()


def test_a_writer_whose_attempts_all_lose_says_so_in_one_line_and_the_table_stays_whole(september, spark):
    before, version = table_rows(spark), table_version(spark)
    append_line(SEP_15, LATE_ORDER)
    hold = september / "hold"
    hold.mkdir()
    process = start_held(hold, "2026-09-16", september, SHOP_WRITE_ATTEMPTS="1")
    try:
        wait_held(hold, 1, ended_processes([process]))
        load_day(spark, "2026-09-21")  # commits between the held write's read and its commit
        release(hold)
        assert process.wait(timeout=600) == 1
    finally:
        if process.poll() is None:
            process.kill()
    assert outputs(process) == ([], (
        f"error: run 2026-09-16 lost a write conflict ({CONFLICT}) on its last attempt (1 of 1): another "
        "writer committed first each time; nothing of it was written, run it again\n"))
    assert (table_rows(spark), table_version(spark)) == (before, version + 1)
