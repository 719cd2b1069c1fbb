"""upkeep.py on real Delta: a year of small days compacted a month a commit with every answer kept (rows,
day states, check lines, --reprocess, history, a later rerun, an undo to before it); a load that lands
during a compaction keeps its rows; VACUUM within a short window, then restore_day's refusal; a dry run
writes nothing; a partitioned table gets a file a day."""
import datetime as dt
import re
import threading
import time

import pytest

import upkeep
from backfill import backfill
from check_day import check_day
from check_month import check_month
from conftest import LATE_ORDER, SEP_15, append_line, table_rows, table_version
from delta_session import orders_table
from holding import held, release, wait_held
from history import main as history_main, table_history, history_line
from load_day import load_day
from make_days import make_days
from partition_table import partition_by_day
from restore_day import main as restore_main, restore_days
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.till import day_frames
from shoptoolkit.truth.day_truth import day_states
from shoptoolkit.truth.reprocess import dates_to_run
from shoptoolkit.writing import commit_days, compaction

YEAR = (dt.date(2025, 10, 1), dt.date(2026, 9, 30))
OPEN_COST = "spark.sql.files.openCostInBytes"  # what Spark counts a file as, besides its bytes, packing splits


def snapshot_files(spark) -> int:
    return len(orders_table(spark).inputFiles())


def answers(spark) -> dict:
    """What a user sees of the year: rows, each day's state and lineage, September's check, --reprocess."""
    first, last = YEAR
    runs = (first + dt.timedelta(days=1), last + dt.timedelta(days=1))
    return {"rows": table_rows(spark),
            "states": [(found.day, found.state, found.message, found.rows, found.loaded)
                       for found in day_states(spark, first, last)],
            "september": check_month(spark, "2026-09"),
            "reprocess": {choice: dates_to_run(spark, *runs, choice) for choice in ("changed", "failed", "missing")}}


def test_a_compacted_year_answers_as_before_and_a_rerun_or_an_undo_still_work(spark, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    make_days(*YEAR)
    # a file a day, as a year loaded a commit a run leaves it (one commit packs consecutive days in a file):
    # the year's files read as one frame, each file a task of its own (a file's open cost a whole split)
    monkeypatch.setattr(commit_days, "packed_days", day_frames.read_days)
    open_cost = spark.conf.get(OPEN_COST)
    spark.conf.set(OPEN_COST, spark.conf.get(day_frames.MAX_PARTITION))
    try:
        backfill(spark, "2025-10-02", "2026-10-01", show=lambda _: None, days_per_commit=0)  # version 0
    finally:
        spark.conf.set(OPEN_COST, open_cost)
    monkeypatch.undo()
    monkeypatch.chdir(tmp_path)
    for run in ("2025-11-06", "2026-02-11", "2026-07-21"):  # reruns: versions 1, 2, 3
        load_day(spark, run)
    append_line(SEP_15, LATE_ORDER)
    load_day(spark, "2026-09-16")  # a correction: version 4
    restore_days(spark, SEP_15, SEP_15, 3)  # undone: version 5
    append_line(dt.date(2026, 3, 3), "9001,C01,1.00,2026-03-03T10:00:00")  # changed after its load
    before, history_before = answers(spark), [history_line(entry) for entry in table_history(spark, 6)]
    assert snapshot_files(spark) == 365

    lines = upkeep.upkeep(spark, "2026-10-01", now=dt.datetime.now(dt.timezone.utc))
    assert [re.sub(r" \([\d,]+ bytes\)", "", line) for line in lines[:12]] == [
        f"compacted {month:%Y-%m}: {days} days in {days} files -> 1 file; version {6 + number}"
        for number, (month, days) in enumerate(months(*YEAR))]
    assert lines[12] == "orders_daily keeps 35 days of undo: deleted files 35 days, its log 65 days"
    assert re.fullmatch(r"VACUUM deleted 0 of \d+ data files; undo window 35 days: restore_day.py can go back to "
                        r"version 0 \(\d{4}-\d\d-\d\d \d\d:\d\d UTC\) or later", lines[13])
    assert snapshot_files(spark) == 12
    assert answers(spark) == before
    history = [history_line(entry) for entry in table_history(spark, 30)]  # 18 to 20: the window, VACUUM
    assert history[-6:] == history_before and history[3] == (
        "version 17 | WRITE | order_date IN 30 days 2026-09-01 .. 2026-09-30 | 130 | "
        "upkeep: compacted 2026-09, the lineage of 30 days kept")
    assert upkeep.upkeep(spark, "2026-10-01", vacuum=False)[0] == "2025-10: 1 file, nothing to compact"

    other_days = [row for row in table_rows(spark) if row[4] != SEP_15]
    assert re.fullmatch(r"run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has \d+", load_day(spark, "2026-09-16"))
    assert [row for row in table_rows(spark) if row[4] != SEP_15] == other_days
    assert check_day(spark, "2026-09-16")[0]
    restore_days(spark, SEP_15, SEP_15, 3)  # to a version before the compaction: inside the window
    assert table_rows(spark, SEP_15) == [row for row in before["rows"] if row[4] == SEP_15]


def months(first: dt.date, last: dt.date) -> list:
    found, day = [], first
    while day <= last:
        end = compaction.month_end(day)
        found.append((day, (end - day).days + 1))
        day = end + dt.timedelta(days=1)
    return found


def test_a_load_that_lands_while_a_month_is_compacted_keeps_its_rows(september, spark, tmp_path, monkeypatch):
    hold, said = tmp_path / "hold", []
    hold.mkdir()
    monkeypatch.setattr(compaction, "month_rows", lambda spark, plan, rows=compaction.month_rows:
                        held(rows(spark, plan), hold, "upkeep"))
    tidy = threading.Thread(target=lambda: said.extend(upkeep.upkeep(spark, "2026-10-01", vacuum=False, show=said.append)))
    tidy.start()
    wait_held(hold, 1, lambda: [] if tidy.is_alive() else ["upkeep ended before it was held", *said])
    append_line(SEP_15, LATE_ORDER)
    assert load_day(spark, "2026-09-16") == "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"
    release(hold)
    tidy.join()
    assert re.fullmatch(r"compact 2026-09 lost a write conflict \(DELTA_CONCURRENT_[A-Z_.]+\); "
                        r"attempt 2 of 8 in \d+\.\d s", said[0])
    assert re.sub(r" \([\d,]+ bytes\)", "", said[1]) == "compacted 2026-09: 30 days in 30 files -> 1 file; version 31"
    assert [row[0] for row in table_rows(spark, SEP_15)][-1] == 2131 and check_day(spark, "2026-09-16")[0]
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 131 orders"])
    assert snapshot_files(spark) == 1


def test_vacuum_past_a_short_window_refuses_an_older_version_in_one_line(september, spark, capfd):
    append_line(SEP_15, LATE_ORDER)
    load_day(spark, "2026-09-16")  # version 30 replaces the day's file of version 29
    upkeep.upkeep(spark, "2026-10-01", window=dt.timedelta(seconds=1), vacuum=False)  # 31 compacts, 32: the window
    time.sleep(1.5)  # the files version 30 and 31 removed are now older than the window
    on_disk = upkeep.data_files()
    assert re.fullmatch(rf"VACUUM deleted {on_disk - 1} of {on_disk} data files; undo window 1 second: restore_day.py "
                        r"can go back to version 3[234] \(.*\) or later", upkeep.upkeep(spark, "2026-10-01")[-1])
    assert upkeep.data_files() == snapshot_files(spark) == 1  # VACUUM's commits: 33, 34
    assert capfd.readouterr() == ("", "")  # Delta's own count went to logs/spark.log
    assert restore_main(["2026-09-16", "--version", "29"]) == 1
    assert re.fullmatch(r"error: version 29 is older than orders_daily's undo window of 1 second: restore_day.py "
                        r"can go back to version 3[234] \(.*\) or later\n", capfd.readouterr().err)
    assert history_main(["--limit", "1"]) == 0
    assert re.fullmatch(r"undo window 1 second: restore_day.py can go back to version 3[45] \(.*\) or later",
                        capfd.readouterr().out.splitlines()[-1])


def test_a_dry_run_says_what_it_would_do_and_writes_nothing(september, spark, capsys):
    version = table_version(spark)
    assert upkeep.main(["--today", "2026-10-01", "--dry-run"]) == 0
    assert [re.sub(r" \([\d,]+ bytes\)", "", line) for line in capsys.readouterr().out.splitlines()] == [
        "would compact 2026-09: 30 days in 30 files -> 1 file",
        f"dry run: undo window 35 days; VACUUM would delete the files replaced longer ago than that; "
        f"nothing written (version {version})"]
    assert table_version(spark) == version
    assert upkeep.main(["--today", "2026-09-30", "--dry-run"]) == 0  # September is not closed yet
    assert capsys.readouterr().out.splitlines()[0].startswith("dry run: undo window 35 days")


@pytest.mark.parametrize("days", ["0", "6", "x"])
def test_a_window_under_a_week_is_a_usage_error(days, capsys):
    with pytest.raises(SystemExit) as done:
        upkeep.main(["--window", days])
    assert done.value.code == 2 and "--window" in capsys.readouterr().err


def test_a_partitioned_table_gets_a_file_a_day(september, spark):
    partition_by_day(spark)
    spark.sql(f"INSERT INTO delta.`{table_path()}` VALUES (9001, 'C01', 1.00, "
              f"TIMESTAMP'2026-09-15 10:00:00', DATE'2026-09-15')")  # another writer: a second file that day
    rows = table_rows(spark)
    assert re.sub(r" \([\d,]+ bytes\)", "", upkeep.upkeep(spark, "2026-10-01", vacuum=False)[0]) == (
        "compacted 2026-09: 30 days in 31 files -> 30 files; version 32")
    assert table_rows(spark) == rows and snapshot_files(spark) == 30
    assert upkeep.upkeep(spark, "2026-10-01", vacuum=False)[0] == "2026-09: 30 files, nothing to compact"
    assert day_file(SEP_15).exists()


def test_a_big_day_keeps_files_of_its_own_and_the_small_days_are_named():
    """The plan alone (no Spark): a day of BIG_DAY_BYTES keeps its file, the month's others are replaced by
    their days, and a file already compacted counts once."""
    day = dt.date(2026, 9, 1)
    files = [(f"day{number}", 1000, day + dt.timedelta(days=number), day + dt.timedelta(days=number))
             for number in range(30)]
    files[14] = ("big", compaction.BIG_DAY_BYTES, dt.date(2026, 9, 15), dt.date(2026, 9, 15))
    plan = compaction.plan_of(day, files, partitioned=False)
    assert (plan.big_days, len(plan.days), plan.files, plan.size, plan.target_files) == (
        (dt.date(2026, 9, 15),), 29, 29, 29_000, 1)
    assert plan.predicate().startswith("order_date IN (DATE'2026-09-01', DATE'2026-09-02', ")
    assert "DATE'2026-09-15'" not in plan.predicate() and plan.worth_it()
    whole = compaction.plan_of(day, [("month", 30_000, day, dt.date(2026, 9, 30))], partitioned=False)
    assert (whole.files, whole.worth_it(), whole.predicate()) == (
        1, False, "order_date >= DATE'2026-09-01' AND order_date <= DATE'2026-09-30'")
    assert compaction.plan_of(day, files[:3], partitioned=True).target_files == 3
