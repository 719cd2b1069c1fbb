"""backfill.py on a terminal: each run's line starts with its place, the closing line ends with the time."""
import datetime as dt
import re

from conftest import run_script
from backfill import Progress
from shoptoolkit.storage.project_paths import day_file

TIMED = re.compile(r"(.*) \((\d+\.\d\d?) s\)")


def untimed(line: str) -> str:
    found = TIMED.fullmatch(line)
    assert found, line
    return found.group(1)


def test_backfill_lines_carry_their_place_and_the_closing_line_the_whole_time(days):
    day_file(dt.date(2026, 9, 2)).unlink()
    done = run_script("backfill.py", "2026-09-02", "2026-09-04", cwd=days)
    assert (done.returncode, done.stderr) == (1, "")
    lines = done.stdout.splitlines()
    assert [untimed(line) for line in lines] == [
        "1/3 run 2026-09-02 loaded 2026-09-01: 4 rows, orders_daily has 4; "
        "ok 2026-09-01: 4 rows for the file's 4 orders, 0 missing",
        "2/3 run 2026-09-03 failed: no file landing/orders/2026-09-02.csv for run 2026-09-03",
        "3/3 run 2026-09-04 loaded 2026-09-03: 4 rows, orders_daily has 8; "
        "ok 2026-09-03: 4 rows for the file's 4 orders, 0 missing",
        "ran 3 runs, 1 failed (2026-09-03); orders_daily has 2 days, 8 orders"]
    assert all(re.search(r" \(\d+\.\d\d s\)$", line) for line in lines[:3])
    runs = sum(float(TIMED.fullmatch(line).group(2)) for line in lines[:3])
    assert re.search(r" \(\d+\.\d s\)$", lines[3]) and float(TIMED.fullmatch(lines[3]).group(2)) >= runs


def test_a_retry_line_keeps_no_place_and_does_not_count_as_a_run(capsys):
    progress = Progress()
    progress.planned(2)
    progress("run 2026-09-03 lost a write conflict (DELTA_CONCURRENT_APPEND.WITHOUT_HINT); attempt 2 of 8 in 1.3 s")
    progress("run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 9; ok 2026-09-02: ... (2.10 s)")
    progress("run 2026-09-02 failed: no file landing/orders/2026-09-01.csv for run 2026-09-02 (0.00 s)")
    assert capsys.readouterr().out.splitlines() == [
        "run 2026-09-03 lost a write conflict (DELTA_CONCURRENT_APPEND.WITHOUT_HINT); attempt 2 of 8 in 1.3 s",
        "1/2 run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 9; ok 2026-09-02: ... (2.10 s)",
        "2/2 run 2026-09-02 failed: no file landing/orders/2026-09-01.csv for run 2026-09-02 (0.00 s)"]


def test_with_days_per_commit_a_run_line_ends_with_its_commit_and_a_commit_line_keeps_no_place(capsys):
    progress = Progress()
    progress.planned(2)
    progress("run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 9; ok 2026-09-02: ... (commit 1 of 1)")
    progress("run 2026-09-02 failed: no file landing/orders/2026-09-01.csv for run 2026-09-02 "
             "(left out of commit 1 of 1)")
    progress("commit 1 of 1 lost a write conflict (DELTA_CONCURRENT_APPEND.WITHOUT_HINT); attempt 2 of 8 in 1.3 s")
    progress("commit 1 of 1: 1 day in one commit, 1 of 2 runs ok (0.81 s)")
    assert capsys.readouterr().out.splitlines() == [
        "1/2 run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 9; ok 2026-09-02: ... (commit 1 of 1)",
        "2/2 run 2026-09-02 failed: no file landing/orders/2026-09-01.csv for run 2026-09-02 "
        "(left out of commit 1 of 1)",
        "commit 1 of 1 lost a write conflict (DELTA_CONCURRENT_APPEND.WITHOUT_HINT); attempt 2 of 8 in 1.3 s",
        "commit 1 of 1: 1 day in one commit, 1 of 2 runs ok (0.81 s)"]
