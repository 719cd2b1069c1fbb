"""restore_day.py on real Delta: a day or a range back as it was at a version, in one commit; refusals;
undo then redo with backfill --reprocess changed; a restore that loses a write conflict is tried again."""
import datetime as dt
import re
from concurrent.futures import ThreadPoolExecutor

import restore_day
from backfill import backfill
from check_month import check_month
from conftest import LATE_ORDER, SEP_15, append_line, table_rows, table_version
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.truth.day_record import file_sha256
from delta_session import history_frame
from holding import held, release, wait_held
from history import main as history_main
from load_day import load_day, main as load_day_main
from restore_day import dry_run, main as restore_main, restore_days

CONFLICT = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"


def other_days(rows, first_day, last_day) -> list:
    return [row for row in rows if not first_day <= row[4] <= last_day]


def test_a_bad_correction_is_undone_then_redone_and_other_days_are_untouched(september, spark, capsys):
    before, original_sha = table_rows(spark), file_sha256(SEP_15)
    append_line(SEP_15, LATE_ORDER)
    assert load_day_main(["2026-09-16"]) == 0  # version 30: the day with the late order
    corrected = table_rows(spark)
    capsys.readouterr()
    assert restore_main(["2026-09-16", "--version", "29"]) == 0
    assert capsys.readouterr().out == (
        "restored 2026-09-15 from version 29 (4 rows -> 3); orders_daily has 130, version 31\n")
    assert table_rows(spark) == before
    assert history_main(["--limit", "2"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "version 31 | WRITE | order_date = DATE'2026-09-15' | 3 | restore_day: 2026-09-15 from version 29",
        f"version 30 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file {file_sha256(SEP_15)[:12]}"]
    ok, lines = check_month(spark, "2026-09")
    assert (ok, lines) == (False, [
        f"PROBLEM 2026-09-15: file changed since run 2026-09-16 loaded it (sha256 {original_sha[:12]}, "
        f"now {file_sha256(SEP_15)[:12]}); reload it with python load_day.py 2026-09-16",
        "PROBLEM 2026-09: 1 of 30 days do not match"])
    shown = []
    assert backfill(spark, "2026-09-02", "2026-10-01", show=shown.append, reprocess="changed") == (
        [], "ran 1 runs, 0 failed, 29 skipped; orders_daily has 30 days, 131 orders")
    assert [line.split(";")[0] for line in shown] == ["run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"]
    assert table_rows(spark) == corrected
    assert check_month(spark, "2026-09")[0]


def test_a_restored_day_is_compared_with_the_file_its_rows_came_from(september, spark):
    """An amount typed wrong keeps the order ids: after the restore the rows are the original file's,
    so the day is changed until its file is the original again (make_days.py writes the same bytes)."""
    from shoptoolkit.truth.day_truth import day_states
    from make_days import make_days
    original = file_sha256(SEP_15)
    typo = day_file(SEP_15).read_text().replace(",24.90,", ",2490.00,")
    assert typo != day_file(SEP_15).read_text()
    day_file(SEP_15).write_text(typo)
    load_day(spark, "2026-09-16")  # version 30: the typo loaded
    restore_days(spark, SEP_15, SEP_15, 29)
    found = day_states(spark, SEP_15, SEP_15)[0]
    assert (found.state, found.loaded["sha256"]) == ("changed", original)
    assert check_month(spark, "2026-09")[1][0] == (
        f"PROBLEM 2026-09-15: file changed since run 2026-09-16 loaded it (sha256 {original[:12]}, "
        f"now {file_sha256(SEP_15)[:12]}); reload it with python load_day.py 2026-09-16")
    make_days()
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 130 orders"])


def test_a_range_is_restored_in_one_commit_and_days_absent_then_are_removed(september, spark):
    before, version = table_rows(spark), table_version(spark)
    assert dry_run(spark, dt.date(2026, 9, 12), dt.date(2026, 9, 16), 12) == [
        "2026-09-12: 5 rows now, 5 at version 12",
        "2026-09-13: 3 rows now, 3 at version 12",
        "2026-09-14: 4 rows now, 0 at version 12",
        "2026-09-15: 3 rows now, 0 at version 12",
        "2026-09-16: 5 rows now, 0 at version 12",
        "dry run: would restore 5 days from version 12 (20 rows -> 8); nothing written"]
    assert table_version(spark) == version
    assert restore_days(spark, dt.date(2026, 9, 12), dt.date(2026, 9, 16), 12) == (
        "restored 2026-09-12 .. 2026-09-16 from version 12 (20 rows -> 8); orders_daily has 118, version 30")
    after = table_rows(spark)
    assert other_days(after, dt.date(2026, 9, 12), dt.date(2026, 9, 16)) == other_days(
        before, dt.date(2026, 9, 12), dt.date(2026, 9, 16))
    assert [row for row in after if dt.date(2026, 9, 12) <= row[4] <= dt.date(2026, 9, 16)] == [
        row for row in before if row[4] in (dt.date(2026, 9, 12), dt.date(2026, 9, 13))]
    newest = history_frame(spark, 1).first()
    assert (newest.version, newest.operationParameters["predicate"], newest.userMetadata) == (
        30, "order_date >= DATE'2026-09-12' AND order_date <= DATE'2026-09-16'",
        "restore_day: 2026-09-12 .. 2026-09-16 from version 12")


def test_a_version_that_does_not_exist_is_refused_in_one_line(september, spark, capsys):
    version = table_version(spark)
    assert restore_main(["2026-09-16", "--version", "30"]) == 1
    assert capsys.readouterr() == ("", "error: version 30 does not exist: orders_daily has versions 0 to 29 "
                                       "(python history.py lists them)\n")
    assert table_version(spark) == version


def test_a_version_vacuum_removed_is_refused_and_names_what_can_still_be_read(september, spark, capsys):
    append_line(SEP_15, LATE_ORDER)
    load_day(spark, "2026-09-16")  # version 30 replaces the day's file of versions 14 .. 29
    spark.conf.set("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    try:
        spark.sql(f"VACUUM delta.`{table_path()}` RETAIN 0 HOURS")
    finally:
        spark.conf.unset("spark.databricks.delta.retentionDurationCheck.enabled")
    version, rows = table_version(spark), table_rows(spark)
    for args in (["2026-09-16", "--version", "29"], ["2026-09-02", "2026-10-01", "--version", "20", "--dry-run"]):
        assert restore_main(args) == 1
        assert capsys.readouterr() == ("", (
            f"error: version {args[-2] if args[-1] == '--dry-run' else args[-1]} cannot be read: VACUUM "
            f"removed 1 of its {int(args[-2] if args[-1] == '--dry-run' else args[-1]) + 1} data files; "
            f"the oldest version that can still be read after it is 30 (versions 30 to {version})\n"))
    assert (table_version(spark), table_rows(spark)) == (version, rows)


def test_a_restore_that_loses_a_write_conflict_is_tried_again(september, spark, monkeypatch, tmp_path):
    """The restore's write is held inside its transaction while another writer commits: it loses, on purpose."""
    before = table_rows(spark)
    append_line(SEP_15, LATE_ORDER)
    load_day(spark, "2026-09-16")
    hold = tmp_path / "hold"
    hold.mkdir()
    at_version = restore_day.table_at_version
    monkeypatch.setattr(restore_day, "table_at_version",
                        lambda spark, version: held(at_version(spark, version), hold, "restore"))
    shown = []
    with ThreadPoolExecutor(1) as pool:
        restoring = pool.submit(restore_days, spark, SEP_15, SEP_15, 29, shown.append)
        wait_held(hold, 1, lambda: [restoring.result()] if restoring.done() else [])
        load_day(spark, "2026-09-21")  # another writer commits version 31 meanwhile
        release(hold)
        line = restoring.result(timeout=300)
    assert len(shown) == 1 and re.fullmatch(
        rf"restore 2026-09-15 lost a write conflict \({CONFLICT}\); attempt 2 of 8 in \d+\.\d s", shown[0]), shown
    assert line == "restored 2026-09-15 from version 29 (4 rows -> 3); orders_daily has 130, version 32"
    assert table_rows(spark) == before
