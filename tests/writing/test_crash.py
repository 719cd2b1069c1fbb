"""SIGKILL a running backfill at seeded moments: the table always reads, every day holds its
complete old rows or its complete new rows, and a rerun ends exactly as an uninterrupted run.

The kills land where they are meant to, not where timing happens to put them. A run's line is printed
after its commit, so a kill planned after k lines waits for the k-th line (k commits landed) and then a
seeded delay of up to the quickest run of the uninterrupted backfill: it lands after k or k+1
commits, between the backfill's commits. A kill planned at 0 lines falls in the first run, timed
from the start: during Spark's start, the first read or the first commit.

Each attempt rewrites the days' files as a new variant (customer ids suffixed vK), so old and new
rows differ on every day. The backfill runs in its own process group and the whole group is killed:
PySpark's JVM is a child of the Python process (it would exit on its own only once it sees its stdin
close, possibly after finishing a commit), so killing the group stops both at the same instant.
"""
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import ROOT, group_members, table_rows, table_version
from fingerprint import content_sha256
from shoptoolkit.storage.project_paths import day_file

FIRST, LAST = "2026-09-02", "2026-09-05"  # 4 runs: days 2026-09-01 .. 2026-09-04
KILLS = int(os.environ.get("SHOP_CRASH_KILLS", "12"))  # more for a longer soak, fewer for a quick try
RUNS = 4
# How many runs' lines each kill waits for: a third in the first run, two thirds between commits.
PLANS = (0, 1, 2)
FINAL = 99


def variant_rows(base: list, variant: int) -> list:
    return sorted((i, f"{customer}v{variant}", amount, at, day) for i, customer, amount, at, day in base)


def write_variant(base_files: dict, variant: int) -> None:
    """Rewrite each day's file with its customer ids suffixed v<variant>."""
    for day, lines in base_files.items():
        rows = [line.split(",") for line in lines[1:]]
        body = [lines[0]] + [",".join([i, f"{c}v{variant}", a, at]) for i, c, a, at in rows]
        day_file(day).write_text("\n".join(body) + "\n")


def by_day(rows: list) -> dict:
    days = {}
    for row in rows:
        days.setdefault(row[4], []).append(row)
    return days


class Backfill:
    """`python backfill.py FIRST LAST` in its own process group, noting when its first line appears."""

    def __init__(self, folder: Path):
        self.started = time.monotonic()
        self.process = subprocess.Popen([sys.executable, str(ROOT / "backfill.py"), FIRST, LAST], cwd=folder,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                        start_new_session=True)
        self.printed, self.lines = threading.Condition(), []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            with self.printed:
                self.lines.append((time.monotonic() - self.started, line))
                self.printed.notify_all()

    def wait_for_lines(self, count: int) -> None:
        with self.printed:
            assert self.printed.wait_for(lambda: len(self.lines) >= count, timeout=300), self.lines

    def finish(self) -> float:
        assert self.process.wait(timeout=600) == 0, self.lines
        return time.monotonic() - self.started

    def kill(self) -> bool:
        """SIGKILL the whole group; True if the backfill was still running."""
        running = self.process.poll() is None
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait(timeout=60)
        deadline = time.monotonic() + 30
        while group_members(self.process.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert group_members(self.process.pid) == [], "a process of the killed backfill lives on"
        return running


def sleep_to_kill_moment(run: Backfill, rng: random.Random, after: int, first: float, quickest: float) -> None:
    """after 0: a moment in the first run, timed from the start; after k: k lines, then under one run."""
    if after == 0:
        time.sleep(max(0.0, rng.uniform(first - quickest, first) - (time.monotonic() - run.started)))
    else:
        run.wait_for_lines(after)
        time.sleep(rng.uniform(0, quickest))


@pytest.mark.timeout(2400)  # about 6 minutes in CI (docs/tests.md), more in a slow hour: far more before it counts as hung
def test_killed_backfill_leaves_whole_days_and_a_rerun_converges(spark, days, tmp_path, monkeypatch):
    from backfill import backfill
    assert backfill(spark, FIRST, LAST, show=lambda line: None)[0] == []
    base = table_rows(spark)
    base_files = {day: day_file(day).read_text().splitlines() for day in by_day(base)}

    reference = tmp_path / "reference"  # the uninterrupted run, from the same start, on the final files
    shutil.copytree(days / "lake", reference / "lake")
    shutil.copytree(days / "landing", reference / "landing")
    monkeypatch.chdir(reference)
    write_variant(base_files, FINAL)
    run = Backfill(reference)
    run.finish()
    first = run.lines[0][0]
    quickest = min(b[0] - a[0] for a, b in zip(run.lines, run.lines[1:RUNS]))  # the time of one run
    expected = content_sha256(spark)
    assert table_rows(spark) == variant_rows(base, FINAL)

    monkeypatch.chdir(days)
    rng, kills, attempt = random.Random(6), 0, 0
    before, version = by_day(table_rows(spark)), table_version(spark)
    commits = []  # for each kill, (lines it waited for, how many of the backfill's commits had landed)
    while kills < KILLS:
        attempt += 1
        assert attempt <= 2 * KILLS, f"only {kills} kills landed while a backfill ran"
        write_variant(base_files, attempt)
        run = Backfill(days)
        after = PLANS[attempt % len(PLANS)]
        sleep_to_kill_moment(run, rng, after, first, quickest)
        killed = run.kill()
        kills += killed
        after_rows, after_version = by_day(table_rows(spark)), table_version(spark)  # the table reads
        assert set(after_rows) == set(before)
        for day, rows in after_rows.items():
            assert rows in (before[day], by_day(variant_rows(base, attempt))[day]), (attempt, day, rows)
        assert 0 <= after_version - version <= RUNS, (attempt, version, after_version)  # a commit a run at most
        if killed:
            commits.append((after, after_version - version))
        before, version = after_rows, after_version  # nothing writes between a kill and the next backfill's start
    print(f"\n(lines waited for, commits landed) of each kill: {commits}")
    assert KILLS > 0 and all(killed in (after, after + 1) for after, killed in commits if after), commits
    assert sum(0 < landed < RUNS for _, landed in commits) >= (KILLS * 2) // 3, commits

    write_variant(base_files, FINAL)  # the rerun, in this session: a table left by a kill reads in any Spark
    assert backfill(spark, FIRST, LAST, show=lambda line: None)[0] == []
    assert content_sha256(spark) == expected
