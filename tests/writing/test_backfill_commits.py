"""backfill.py --days-per-commit: a range of days in one Delta commit, checked in one query."""
import datetime as dt
import io
import json
import re
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout

import pytest

from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.till import in_spark
from shoptoolkit.truth.day_record import recorded_checks
from shoptoolkit.truth.day_truth import day_states
from shoptoolkit.writing import commit_days
from backfill import main as backfill_main
from check_month import check_month
from conftest import LATE_ORDER, SEP_15, append_line, table_rows, table_version
from delta_session import history_frame
from holding import held, release, wait_held
from history import main as history_main
from load_day import load_day
from restore_day import restore_days

SEPTEMBER = ["2026-09-02", "2026-10-01"]


@pytest.fixture(params=["two passes", "one job"])
def way(request, monkeypatch):
    """The commit checked, then written (a file a run of days), or with every file counted big: read,
    checked and written in one job (held_write.py), the two-pass way only for a refused file or a clash."""
    if request.param == "one job":
        monkeypatch.setattr(in_spark, "SPARK_CHECK_BYTES", 0)
    return request.param
CONFLICT = r"DELTA_CONCURRENT_APPEND\.WITHOUT_HINT"


def backfilled(*args) -> tuple:
    """backfill.py's main with args, in this session: (exit code, printed lines, the closing line's time removed)."""
    with redirect_stdout(io.StringIO()) as printed:
        code = backfill_main([*args])
    lines = printed.getvalue().splitlines()
    assert re.search(r" \(\d+\.\d s\)$", lines[-1]), lines[-1]
    return code, lines[:-1] + [re.sub(r" \(\d+\.\d s\)$", "", lines[-1])]


def untimed(lines) -> list:
    """Commit lines without their time."""
    return [re.sub(r" \(\d+\.\d\d s\)$", "", line) for line in lines]


def expected_run_line(template_lines, place: int, total: int, what: str) -> str:
    """The per-run backfill's line of the same run (its place, rows and check), as a --days-per-commit line:
    the table's total is the commit's, the time is the commit's name."""
    line = re.sub(r"^\d+/\d+ ", f"{place}/{total} ", template_lines[place - 1])
    return re.sub(r" \(\d+\.\d\d s\)$", f" ({what})", line)


def test_september_in_one_commit_prints_each_run_and_holds_what_30_commits_hold(
        days, spark, september_template, capsys, way, monkeypatch):
    if way == "one job":
        monkeypatch.setattr(commit_days, "checked_files", None)  # the two-pass check is not called
    code, lines = backfilled(*SEPTEMBER, "--days-per-commit", "all")
    assert code == 0
    per_run = (september_template / "backfill.out").read_text(encoding="utf-8").splitlines()
    assert lines[:30] == [re.sub(r"orders_daily has \d+;", "orders_daily has 130;",
                                 expected_run_line(per_run, place, 30, "commit 1 of 1"))
                          for place in range(1, 31)]
    assert untimed(lines[30:]) == ["commit 1 of 1: 30 days in one commit, 30 of 30 runs ok",
                                   "ran 30 runs in 1 commit, 0 failed; orders_daily has 30 days, 130 orders"]
    template = spark.read.format("delta").load(str(september_template / "lake" / "orders_daily"))
    assert table_rows(spark) == sorted(tuple(row) for row in template.collect())
    assert table_version(spark) == 0
    assert history_main([]) == 0
    assert capsys.readouterr().out == ("version 0 | WRITE | order_date IN 30 days 2026-09-01 .. 2026-09-30 | 130 "
                                       "| runs 2026-09-02 .. 2026-10-01 | 30 files\n")
    ok, month = check_month(spark, "2026-09")
    assert (ok, month) == (True, ["ok 2026-09: all 30 days match their files, 130 orders"])
    lineage = json.loads(history_frame(spark, 1).first().userMetadata)["days"]
    assert [(entry["run_date"], entry["day"], entry["rows_written"]) for entry in lineage[:2]] == [
        ("2026-09-02", "2026-09-01", 4), ("2026-09-03", "2026-09-02", 5)]
    assert [found.loaded for found in day_states(spark, "2026-09-01", "2026-09-30")] == lineage
    added = [action for action in history_frame(spark, 1).first().operationMetrics.items() if action[0] == "numFiles"]
    assert added == [("numFiles", "1")]  # the month's small days in one file, each proven by the record
    assert len(recorded_checks([dt.date(2026, 9, day) for day in range(1, 31)])) == 30


def test_seven_days_a_commit_makes_five_commits_each_named_in_the_history(days, spark, capsys):
    code, lines = backfilled(*SEPTEMBER, "--days-per-commit", "7")
    assert code == 0
    assert untimed([line for line in lines if line.startswith("commit")]) == [
        f"commit {number} of 5: {days_in} days in one commit, {days_in} of {days_in} runs ok"
        for number, days_in in zip(range(1, 6), (7, 7, 7, 7, 2))]
    assert lines[6].endswith("(commit 1 of 5)") and lines[8].endswith("(commit 2 of 5)")
    assert lines[-1] == "ran 30 runs in 5 commits, 0 failed; orders_daily has 30 days, 130 orders"
    assert history_main(["--limit", "2"]) == 0
    assert capsys.readouterr().out == (
        "version 4 | WRITE | order_date IN 2 days 2026-09-29 .. 2026-09-30 | 11 | runs 2026-09-30 .. 2026-10-01 "
        "| 2 files\n"
        "version 3 | WRITE | order_date IN 7 days 2026-09-22 .. 2026-09-28 | 31 | runs 2026-09-23 .. 2026-09-29 "
        "| 7 files\n")


def test_a_missing_and_a_refused_day_keep_their_old_rows_and_the_other_days_land(september, spark, way):
    before = table_rows(spark)
    day_file(dt.date(2026, 9, 20)).unlink()
    append_line(dt.date(2026, 9, 10), "2999,C01,abc,2026-09-10T10:00:00")
    append_line(SEP_15, LATE_ORDER)
    code, lines = backfilled("2026-09-09", "2026-09-22", "--days-per-commit", "0")
    assert code == 1
    assert lines[2] == ("3/14 run 2026-09-11 failed: landing/orders/2026-09-10.csv line 5: amount 'abc' is not "
                        "a number like 19.99 (left out of commit 1 of 1)")
    assert lines[6] == ("7/14 run 2026-09-15 loaded 2026-09-14: 4 rows, orders_daily has 131; "
                        "ok 2026-09-14: 4 rows for the file's 4 orders, 0 missing (commit 1 of 1)")
    assert lines[7] == ("8/14 run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131; "
                        "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing (commit 1 of 1)")
    assert lines[12] == ("13/14 run 2026-09-21 failed: no file landing/orders/2026-09-20.csv for run 2026-09-21 "
                         "(left out of commit 1 of 1)")
    assert untimed(lines[14:]) == [
        "commit 1 of 1: 12 days in one commit, 12 of 14 runs ok",
        "ran 14 runs in 1 commit, 2 failed (2026-09-11, 2026-09-21); orders_daily has 30 days, 131 orders"]
    late = (2131, "C02", 19.99, dt.datetime(2026, 9, 15, 20, 30), SEP_15)
    assert [(row[0], row[1], float(row[2]), row[3], row[4]) for row in table_rows(spark, SEP_15)][-1] == late
    untouched = {dt.date(2026, 9, 10), dt.date(2026, 9, 20)}
    assert [row for row in table_rows(spark) if row[4] in untouched] == [
        row for row in before if row[4] in untouched]
    predicate = history_frame(spark, 1).first().operationParameters["predicate"]
    assert "2026-09-08" in predicate and "2026-09-10" not in predicate and "2026-09-20" not in predicate


def test_an_id_on_two_days_of_one_commit_refuses_the_later_day_only(days, spark, way):
    append_line(dt.date(2026, 9, 5), "2011,C07,61.75,2026-09-05T09:20:12")  # 2011 is 3 September's
    code, lines = backfilled("2026-09-02", "2026-09-07", "--days-per-commit", "all")
    assert code == 1
    assert lines[4] == ("5/6 run 2026-09-06 failed: landing/orders/2026-09-05.csv line 5: order_id already "
                        "stored on another day: 2011 (on 2026-09-03) (left out of commit 1 of 1)")
    assert lines[-1] == "ran 6 runs in 1 commit, 1 failed (2026-09-06); orders_daily has 5 days, 21 orders"
    assert [row[0] for row in table_rows(spark, dt.date(2026, 9, 3))] == [2010, 2011, 2012, 2013]


def test_an_id_stored_on_a_day_outside_the_commit_is_refused(september, spark):
    append_line(dt.date(2026, 9, 5), "2011,C07,61.75,2026-09-05T09:20:12")
    before = table_rows(spark)
    code, lines = backfilled("2026-09-06", "2026-09-07", "--days-per-commit", "2")
    assert code == 1
    assert lines[0] == ("1/2 run 2026-09-06 failed: landing/orders/2026-09-05.csv line 5: order_id already "
                        "stored on another day: 2011 (on 2026-09-03) (left out of commit 1 of 1)")
    assert untimed(lines[2:3]) == ["commit 1 of 1: 1 day in one commit, 1 of 2 runs ok"]
    assert table_rows(spark) == before


def test_a_commit_that_fails_in_its_write_lands_nothing(september, spark, monkeypatch):
    """One file is spoilt after its line check, so Spark's read fails inside the commit's write job."""
    before, version = table_rows(spark), table_version(spark)
    packed_days = commit_days.packed_days

    def spoil_then_read(spark, found_days):
        with open(day_file(dt.date(2026, 9, 12)), "a", encoding="utf-8") as handle:
            handle.write("2998,C01,not-a-number,2026-09-12T10:00:00\n")
        return packed_days(spark, found_days)
    monkeypatch.setattr(commit_days, "packed_days", spoil_then_read)
    code, lines = backfilled("2026-09-11", "2026-09-14", "--days-per-commit", "all")
    assert code == 1
    assert all(re.fullmatch(r"\d/4 run 2026-09-1\d failed: .+ \(commit 1 of 1, not written\)", line)
               for line in lines[:4]), lines
    assert untimed(lines[4:]) == ["commit 1 of 1: nothing written, 0 of 4 runs ok",
                                  "ran 4 runs in 0 commits, 4 failed (2026-09-11, 2026-09-12, 2026-09-13, "
                                  "2026-09-14); orders_daily has 30 days, 130 orders"]
    assert (table_rows(spark), table_version(spark)) == (before, version)


def test_restore_puts_one_day_back_out_of_a_30_day_commit(days, spark):
    assert backfilled(*SEPTEMBER, "--days-per-commit", "all")[0] == 0
    first = table_rows(spark)
    append_line(SEP_15, LATE_ORDER)
    assert backfilled(*SEPTEMBER, "--days-per-commit", "all")[0] == 0  # version 1: 15 September has 5 rows
    line = restore_days(spark, SEP_15, SEP_15, 0, lambda _: None)
    assert line == "restored 2026-09-15 from version 0 (4 rows -> 3); orders_daily has 130, version 2"
    assert table_rows(spark) == first
    found = {state.day: state for state in day_states(spark, "2026-09-14", "2026-09-16")}
    assert (found[SEP_15].state, found[dt.date(2026, 9, 14)].state) == ("changed", "ok")
    committed = json.loads(history_frame(spark).where("version = 0").first().userMetadata)["days"]
    assert found[SEP_15].loaded == next(entry for entry in committed if entry["day"] == "2026-09-15")


def test_reprocess_changed_finds_the_one_changed_day_of_a_commit(days, spark):
    assert backfilled(*SEPTEMBER, "--days-per-commit", "all")[0] == 0
    append_line(SEP_15, LATE_ORDER)
    with redirect_stdout(io.StringIO()) as printed:
        assert backfill_main([*SEPTEMBER, "--reprocess", "changed", "--dry-run"]) == 0
    dry = printed.getvalue().splitlines()
    assert [line for line in dry if line.endswith("would run (changed)")] == ["run 2026-09-16 loads 2026-09-15: would run (changed)"]
    assert dry[-1] == "dry run: 1 of 30 runs would run, 29 skipped; nothing written"
    code, lines = backfilled(*SEPTEMBER, "--reprocess", "changed", "--days-per-commit", "all")
    assert (code, lines[0]) == (0, "1/1 run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131; "
                                   "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing (commit 1 of 1)")
    assert lines[-1] == "ran 1 runs in 1 commit, 0 failed, 29 skipped; orders_daily has 30 days, 131 orders"
    assert history_frame(spark, 1).first().operationParameters["predicate"] == "order_date = DATE'2026-09-15'"


def test_commits_at_once_on_a_partitioned_table_land_whole(days, spark, monkeypatch):
    monkeypatch.setenv("SHOP_PARTITIONED", "1")
    code, lines = backfilled(*SEPTEMBER, "--days-per-commit", "10", "--parallel", "3")
    assert code == 0
    assert sorted(untimed(line for line in lines if line.startswith("commit"))) == [
        f"commit {number} of 3: 10 days in one commit, 10 of 10 runs ok" for number in (1, 2, 3)]
    assert lines[-1] == "ran 30 runs in 3 commits, 0 failed; orders_daily has 30 days, 130 orders"
    assert table_version(spark) == 2
    assert check_month(spark, "2026-09")[0]


def test_a_commit_that_loses_a_write_conflict_is_tried_again(september, spark, monkeypatch, tmp_path):
    """The commit's rows are held inside its transaction while another writer commits: it loses, on purpose."""
    hold = tmp_path / "hold"
    hold.mkdir()
    packed_days = commit_days.packed_days
    monkeypatch.setattr(commit_days, "packed_days", lambda spark, found: held(packed_days(spark, found), hold, "commit"))
    append_line(SEP_15, LATE_ORDER)
    shown = []
    with ThreadPoolExecutor(1) as pool:
        loading = pool.submit(commit_days.load_days, spark, ["2026-09-15", "2026-09-16"], "commit 1 of 1",
                              shown.append)
        wait_held(hold, 1, lambda: [loading.result()] if loading.done() else [])
        load_day(spark, "2026-09-21")  # another writer commits version 30 meanwhile
        release(hold)
        days_in, results = loading.result(timeout=300)
    assert len(shown) == 1 and re.fullmatch(
        rf"commit 1 of 1 lost a write conflict \({CONFLICT}\); attempt 2 of 8 in \d+\.\d s", shown[0]), shown
    assert (days_in, [ok for _, ok, _ in results]) == (2, [True, True])
    assert results[1][2] == ("run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131; "
                             "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing (commit 1 of 1)")
    assert table_version(spark) == 31


@pytest.mark.parametrize("value, problem", [("-1", "'-1' is not a number of days (or all)"),
                                            ("most", "'most' is not a number of days (or all)")])
def test_a_bad_days_per_commit_is_a_usage_error(value, problem, capsys):
    with pytest.raises(SystemExit) as stopped:
        backfill_main([*SEPTEMBER, "--days-per-commit", value])
    assert stopped.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"argument --days-per-commit: {problem}")


def test_only_the_files_whose_id_ranges_meet_are_looked_at_for_shared_ids():
    from shoptoolkit.writing.commit_ids import overlapping
    from shoptoolkit.till.in_python import DayFile

    def entry(day, lowest, highest, count=1):
        return (None, day, DayFile(None, [], None, 0, "", count, lowest, highest))
    passed = [entry(1, 1, 10), entry(2, 20, 30), entry(3, 5, 6), entry(4, 30, 40), entry(5, 50, 60),
              entry(6, None, None, 0), entry(7, 11, 19)]
    assert [day for _, day, _ in overlapping(passed)] == [1, 2, 3, 4]
    assert overlapping(passed[4:]) == []


def test_a_first_load_refused_in_one_job_leaves_no_folder_and_the_other_days_land(days, spark, monkeypatch):
    """No table yet: the one job meets the bad line and commits nothing, its files and folder are deleted,
    and the two-pass way refuses the day in its words and creates the table with the others."""
    monkeypatch.setattr(in_spark, "SPARK_CHECK_BYTES", 0)
    append_line(dt.date(2026, 9, 3), "2999,C01,abc,2026-09-03T10:00:00")
    bad_line = len(day_file(dt.date(2026, 9, 3)).read_text(encoding="utf-8").splitlines())
    code, lines = backfilled("2026-09-02", "2026-09-05", "--days-per-commit", "all")
    assert code == 1
    assert lines[2] == (f"3/4 run 2026-09-04 failed: landing/orders/2026-09-03.csv line {bad_line}: amount 'abc' "
                        "is not a number like 19.99 (left out of commit 1 of 1)")
    assert re.fullmatch(r"ran 4 runs in 1 commit, 1 failed \(2026-09-04\); orders_daily has 3 days, \d+ orders",
                        lines[-1]), lines[-1]
    assert table_version(spark) == 0


def test_a_day_of_a_packed_month_is_rerun_alone_and_upkeep_packs_the_month_again(days, spark, capsys):
    """September in one commit is one file; a rerun of the 15th replaces its rows only (the other days' rows
    are copied into a new file, not counted as written), the month's other days still check ok, and
    upkeep makes the two files one again."""
    import upkeep
    assert backfilled(*SEPTEMBER, "--days-per-commit", "all")[0] == 0
    others = [row for row in table_rows(spark) if row[4] != SEP_15]
    append_line(SEP_15, LATE_ORDER)
    assert load_day(spark, "2026-09-16") == "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"
    assert [row for row in table_rows(spark) if row[4] != SEP_15] == others
    assert history_main(["--limit", "1"]) == 0
    assert capsys.readouterr().out.startswith("version 1 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16")
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 131 orders"])
    assert re.sub(r" \([\d,]+ bytes\)", "", upkeep.upkeep(spark, "2026-10-01", vacuum=False)[0]) == (
        "compacted 2026-09: 30 days in 2 files -> 1 file; version 2")
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 131 orders"])
