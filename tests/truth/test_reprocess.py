"""Day states from files, table and history; the month calendar; backfill --reprocess and --dry-run."""
import csv
import datetime as dt
import hashlib
import io
import json
import re
from types import SimpleNamespace

from conftest import LATE_ORDER, SEP_15, append_line, run_script, table_rows, table_version
from backfill import backfill, main as backfill_main
from check_month import check_month, main as check_month_main, month_states
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.till.in_python import read_day_file
from shoptoolkit.truth.day_truth import DayState
from shoptoolkit.truth.month_calendar import draw_calendar, wants_colour
from shoptoolkit.truth.reprocess import dry_run
from shoptoolkit.truth.verdict import closing_line
from history import main as history_main, table_history
from load_day import main as load_day_main
from make_days import make_days

SEPTEMBER = dt.date(2026, 9, 1)
SEPTEMBER_15_CHANGED = """\
September 2026: 29 ok, 1 changed
Mon        Tue        Wed        Thu        Fri        Sat        Sun
            1 ok       2 ok       3 ok       4 ok       5 ok       6 ok
 7 ok       8 ok       9 ok      10 ok      11 ok      12 ok      13 ok
14 ok      15 changed 16 ok      17 ok      18 ok      19 ok      20 ok
21 ok      22 ok      23 ok      24 ok      25 ok      26 ok      27 ok
28 ok      29 ok      30 ok
"""


def states_of(spark, month="2026-09", today=None) -> dict:
    """Every day that is not ok, with its state."""
    return {found.day: found.state for found in month_states(spark, month, today) if found.state != "ok"}


def sha256(day) -> str:
    return hashlib.sha256(day_file(day).read_bytes()).hexdigest()


def test_history_json_gives_each_commits_lineage(september, spark, capsys):
    assert history_main(["--limit", "1", "--json"]) == 0
    entry = json.loads(capsys.readouterr().out)
    last_day = dt.date(2026, 9, 30)
    assert (entry["operation"], entry["predicate"], entry["rows_written"]) == (
        "WRITE", "order_date = DATE'2026-09-30'", 6)
    assert entry["lineage"] == {"run_date": "2026-10-01", "day": "2026-09-30",
                                "file": "landing/orders/2026-09-30.csv",
                                "size": day_file(last_day).stat().st_size, "sha256": sha256(last_day),
                                "rows_read": 6, "rows_written": 6, "lowest": min(file_ids(last_day)),
                                "highest": max(file_ids(last_day)), "rows_digest": read_day_file(last_day).rows_digest}


def file_ids(day) -> list:
    with open(day_file(day), newline="") as rows:
        return [int(row["order_id"]) for row in csv.DictReader(rows)]


def test_late_order_makes_only_15_sep_changed_and_reprocess_changed_reruns_only_its_run(
        september, spark, capsys):
    others_before = [row for row in table_rows(spark) if row[4] != SEP_15]
    append_line(SEP_15, LATE_ORDER)
    assert check_month_main(["2026-09"]) == 1
    loaded = next(e["lineage"] for e in table_history(spark, 100) if e["lineage"].get("day") == str(SEP_15))
    assert capsys.readouterr().out == SEPTEMBER_15_CHANGED + (
        f"\nPROBLEM 2026-09-15: file changed since run 2026-09-16 loaded it (sha256 {loaded['sha256'][:12]}, "
        f"now {sha256(SEP_15)[:12]}); reload it with python load_day.py 2026-09-16\n"
        "PROBLEM 2026-09: 1 of 30 days do not match\n")
    version, shown = table_version(spark), []

    assert backfill(spark, "2026-09-02", "2026-10-01", show=shown.append, reprocess="changed") == (
        [], "ran 1 runs, 0 failed, 29 skipped; orders_daily has 30 days, 131 orders")
    assert len(shown) == 1 and shown[0].startswith(
        "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131; ok 2026-09-15: 4 rows")
    new = [entry for entry in table_history(spark, 100) if entry["version"] > version]
    assert [(e["operation"], e["predicate"], e["rows_written"], e["lineage"]["run_date"],
             e["lineage"]["sha256"]) for e in new] == [
        ("WRITE", "order_date = DATE'2026-09-15'", 4, "2026-09-16", sha256(SEP_15))]
    assert [row for row in table_rows(spark) if row[4] != SEP_15] == others_before

    # The day was rewritten from its unchanged file: it is ok now, and the same command runs nothing.
    assert backfill(spark, "2026-09-02", "2026-10-01", show=shown.append, reprocess="changed") == (
        [], "ran 0 runs, 0 failed, 30 skipped; orders_daily has 30 days, 131 orders")
    assert table_version(spark) == version + 1
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 131 orders"])


def test_dry_run_says_what_would_run_and_why_and_writes_nothing(september, spark, capsys):
    append_line(SEP_15, LATE_ORDER)
    version, before = table_version(spark), table_rows(spark)
    assert backfill_main(["2026-09-14", "2026-09-17", "--reprocess", "changed", "--dry-run"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "dry run, --reprocess changed: runs the days that are changed, mismatch or missing",
        "run 2026-09-14 loads 2026-09-13: skip (ok)",
        "run 2026-09-15 loads 2026-09-14: skip (ok)",
        "run 2026-09-16 loads 2026-09-15: would run (changed)",
        "run 2026-09-17 loads 2026-09-16: skip (ok)",
        "dry run: 1 of 4 runs would run, 3 skipped; nothing written"]
    assert (table_version(spark), table_rows(spark)) == (version, before)


def test_dry_run_before_the_first_load_finds_every_day_missing_and_creates_no_table(days, spark):
    lines = dry_run(spark, "2026-09-02", "2026-09-03", "missing")
    assert lines[1:] == ["run 2026-09-02 loads 2026-09-01: would run (missing)",
                         "run 2026-09-03 loads 2026-09-02: would run (missing)",
                         "dry run: 2 of 2 runs would run, 0 skipped; nothing written"]
    assert not (days / "lake").exists()


def test_a_deleted_file_shows_no_file_and_failed_would_rerun_its_run(september, spark):
    day_file(dt.date(2026, 9, 20)).unlink()
    assert states_of(spark) == {dt.date(2026, 9, 20): "no file"}
    assert dry_run(spark, "2026-09-20", "2026-09-22", "failed") == [
        "dry run, --reprocess failed: runs the days that are mismatch, missing or no file",
        "run 2026-09-20 loads 2026-09-19: skip (ok)",
        "run 2026-09-21 loads 2026-09-20: would run (no file)",
        "run 2026-09-22 loads 2026-09-21: skip (ok)",
        "dry run: 1 of 3 runs would run, 2 skipped; nothing written"]


def test_deleted_rows_show_missing_and_reprocess_missing_reloads_them(september, spark):
    before = table_rows(spark)
    spark.sql("DELETE FROM orders_daily WHERE order_date = '2026-09-10'")
    assert states_of(spark) == {dt.date(2026, 9, 10): "missing"}
    shown = []
    assert backfill(spark, "2026-09-02", "2026-10-01", show=shown.append, reprocess="missing") == (
        [], "ran 1 runs, 0 failed, 29 skipped; orders_daily has 30 days, 130 orders")
    assert [line.split(":")[0] for line in shown] == ["run 2026-09-11 loaded 2026-09-10"]
    assert table_rows(spark) == before


def test_a_file_edited_with_the_same_order_ids_is_changed_and_not_ok(september, spark):
    sep_5 = dt.date(2026, 9, 5)
    header, first, *rest = day_file(sep_5).read_text().splitlines()
    order_id, customer, _, ordered_at = first.split(",")
    day_file(sep_5).write_text("\n".join([header, f"{order_id},{customer},99.99,{ordered_at}", *rest]) + "\n")
    loaded = next(e["lineage"] for e in table_history(spark, 100) if e["lineage"].get("day") == str(sep_5))
    assert check_month(spark, "2026-09") == (False, [
        f"PROBLEM 2026-09-05: file changed since run 2026-09-06 loaded it (sha256 {loaded['sha256'][:12]}, "
        f"now {sha256(dt.date(2026, 9, 5))[:12]}); reload it with python load_day.py 2026-09-06",
        "PROBLEM 2026-09: 1 of 30 days do not match"])


def test_future_days_and_json(september, spark, capsys):
    assert check_month_main(["2026-09", "--today", "2026-09-20", "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert (found["month"], found["today"], found["ok"]) == ("2026-09", "2026-09-20", True)
    assert [day["state"] for day in found["days"]] == ["ok"] * 19 + ["future"] * 11
    assert found["days"][14] == {"day": "2026-09-15", "state": "ok", "rows": 3,
                                 "check": "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing",
                                 "file_sha256": sha256(SEP_15), "loaded_sha256": sha256(SEP_15),
                                 "loaded_by_run": "2026-09-16"}
    assert found["lines"] == ["ok 2026-09: all 19 days up to 2026-09-19 match their files, 81 orders (11 future)"]


DECEMBER_ON_THE_2ND = """\
December 2026: 1 ok, 30 future
Mon       Tue       Wed       Thu       Fri       Sat       Sun
           1 ok      2 future  3 future  4 future  5 future  6 future
 7 future  8 future  9 future 10 future 11 future 12 future 13 future
14 future 15 future 16 future 17 future 18 future 19 future 20 future
21 future 22 future 23 future 24 future 25 future 26 future 27 future
28 future 29 future 30 future 31 future

ok 2026-12: the 1 day up to 2026-12-01 matches its file, 3 orders (30 future)
"""


def test_a_month_in_progress_passes_when_every_day_up_to_yesterday_matches(spark, tmp_path, monkeypatch, capsys):
    """On 2 December, after its run, December is 1 day loaded and 30 to come: future, not problems.
    2 December's file is still being written; the day after, its run not done, it is missing."""
    monkeypatch.chdir(tmp_path)
    make_days(dt.date(2026, 12, 1), dt.date(2026, 12, 2))
    assert load_day_main(["2026-12-02"]) == 0
    capsys.readouterr()
    assert check_month_main(["2026-12", "--today", "2026-12-02"]) == 0
    assert capsys.readouterr().out == DECEMBER_ON_THE_2ND
    ids = ", ".join(str(20261202_00 + n) for n in (1, 2, 3))
    assert check_month(spark, "2026-12", "2026-12-03") == (False, [
        f"PROBLEM 2026-12-02: 0 rows for the file's 3 orders, 3 missing ({ids})",
        "PROBLEM 2026-12: 1 of 2 days up to 2026-12-02 do not match (29 future)"])
    assert check_month(spark, "2027-01", "2026-12-02") == (True, ["ok 2027-01: no day to check yet, 0 orders "
                                                                  "(31 future)"])


def test_september_2026_calendar_starts_on_a_tuesday_in_five_week_rows():
    states = [DayState(SEPTEMBER.replace(day=n), "ok", True, "", 1, "", {}) for n in range(1, 31)]
    states[14] = DayState(SEP_15, "changed", True, "", 3, "", {})
    lines = draw_calendar(SEPTEMBER, states)
    assert "\n".join(lines) + "\n" == SEPTEMBER_15_CHANGED
    assert len(lines) == 2 + 5 and lines[2].index(" 1 ok") == lines[1].index("Tue")
    coloured = draw_calendar(SEPTEMBER, states, colour=True)
    assert "\033[33mchanged\033[0m" in coloured[4]
    assert [re.sub(r"\033\[[0-9;]*m", "", line) for line in coloured] == lines


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_colour_only_on_a_terminal_without_no_color():
    assert wants_colour(Terminal(), {}) is True
    assert wants_colour(Terminal(), {"NO_COLOR": "1"}) is False
    assert wants_colour(io.StringIO(), {}) is False


def test_unknown_reprocess_choice_is_a_usage_error(tmp_path):
    done = run_script("backfill.py", "2026-09-02", "2026-09-03", "--reprocess", "some", cwd=tmp_path)
    assert done.returncode == 2 and "argument --reprocess: invalid choice: 'some'" in done.stderr
    assert not (tmp_path / "logs").exists()


def test_the_closing_line_counts_one_day_and_no_day_in_words():
    one = [SimpleNamespace(day=dt.date(2026, 12, 1), rows=3)]
    assert closing_line("2026-12", one, 30, 0) == "ok 2026-12: the 1 day up to 2026-12-01 matches its file, 3 orders (30 future)"
    assert closing_line("2026-12", one, 30, 1) == "PROBLEM 2026-12: 1 of 1 day up to 2026-12-01 does not match (30 future)"
    assert closing_line("2027-01", [], 31, 0) == "ok 2027-01: no day to check yet, 0 orders (31 future)"
    two = one + [SimpleNamespace(day=dt.date(2026, 12, 2), rows=4)]
    assert closing_line("2026-12", two, 29, 0) == "ok 2026-12: all 2 days up to 2026-12-02 match their files, 7 orders (29 future)"
