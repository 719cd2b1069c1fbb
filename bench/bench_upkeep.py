"""Benchmark of upkeep.py: a year of small days with 30 reruns, before and after compaction and VACUUM.

    python bench/bench_upkeep.py            # about 6 minutes on 2 cores

In a temporary root: the year 2025-10-01 .. 2026-09-30 (make_days' days) backfilled in one commit,
then 30 reruns of days spread over it, in one session. The table is copied (the "before" root), then
upkeep.upkeep compacts the 12 closed months and VACUUMs. VACUUM keeps what the table's undo window
needs; so that it can delete what the compaction replaced here and now, this table's window is set to
one second (upkeep.py's --window takes 7 days at least; the function takes any timedelta). Printed:
the data files and bytes on disk before, after compaction and after VACUUM, against the target (at
most 24 files); then `check_month.py 2026-02`, `python -c` counting the whole table and `history.py`,
each a process of its own on the two roots, alternating; then a rerun of one day (load_day, in this
session) in a compacted month against the same rerun in the uncompacted copy, alternating.
"""
import argparse
import datetime as dt
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backfill import backfill  # noqa: E402
from bench_engine import top_line  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402
from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import root_at, table_path
from upkeep import upkeep  # noqa: E402

YEAR = (dt.date(2025, 10, 1), dt.date(2026, 9, 30))
RERUNS = [str(day + dt.timedelta(days=1)) for day in run_dates(*YEAR)[5::12][:30]]  # 30 days across the year
TARGET_FILES = 24
COUNT = "from delta_session import delta_spark, orders_table; print(orders_table(delta_spark('count', commits=0)).count())"


def on_disk() -> tuple:
    """(data files, their bytes) below the table, the log's checkpoints left out."""
    files = [path for path in table_path().rglob("*.parquet") if "_delta_log" not in path.parts]
    return len(files), sum(path.stat().st_size for path in files)


def commands() -> dict:
    return {"check_month.py 2026-02": [sys.executable, str(ROOT / "check_month.py"), "2026-02", "--today", "2026-10-01"],
            "a full count": [sys.executable, "-c", COUNT],
            "history.py": [sys.executable, str(ROOT / "history.py")]}


def timed(command: list, root: Path) -> float:
    began = time.perf_counter()
    done = subprocess.run(command, cwd=root, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode in (0, 1), done.stderr  # check_month exits 1 when a day is not ok
    return time.perf_counter() - began


def side_by_side(ways: dict, rounds: int) -> dict:
    """{name: [seconds, ...]}: each way rounds times, alternating, a line a try."""
    found = {name: [] for name in ways}
    for number in range(1, rounds + 1):
        for name, way in ways.items():
            found[name].append(way())
            print(f"  {name}, try {number}: {found[name][-1]:.2f} s", flush=True)
    return found


def year_with_reruns(spark) -> None:
    make_days(*YEAR)
    backfill(spark, str(YEAR[0] + dt.timedelta(days=1)), str(YEAR[1] + dt.timedelta(days=1)),
             show=lambda _: None, days_per_commit=0)
    for run in RERUNS:
        load_day(spark, run)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="tries a way (default 2)")
    args = parser.parse_args(argv)
    print(f"== upkeep: {top_line()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        after, before = Path(folder) / "after", Path(folder) / "before"
        with root_at(after):
            spark = delta_spark("bench_upkeep")
            year_with_reruns(spark)
            shutil.copytree(after, before)
            sizes = {"before": on_disk()}
            upkeep(spark, "2026-10-01", window=dt.timedelta(seconds=1), vacuum=False)
            sizes["after compaction"] = on_disk()
            time.sleep(2)
            upkeep(spark, "2026-10-01")
            sizes["after VACUUM"] = on_disk()
        for name, (files, size) in sizes.items():
            print(f"{name}: {files} data files, {size:,} bytes", flush=True)
        files = sizes["after VACUUM"][0]
        print(f"the year after compaction and VACUUM: {files} files (target at most {TARGET_FILES}: "
              f"{'met' if files <= TARGET_FILES else 'not met'})", flush=True)
        for what, command in commands().items():
            found = side_by_side({f"{what}, {name}": (lambda root=root: timed(command, root))
                                  for name, root in (("before", before), ("after", after))}, args.rounds)
            print(f"{what}: " + ", ".join(f"{name.rsplit(', ', 1)[1]} {min(times):.2f} s"
                                          for name, times in found.items()), flush=True)
        reruns = side_by_side({f"rerun of 2026-02-10, {name}": (lambda root=root: rerun(spark, root))
                               for name, root in (("uncompacted", before), ("compacted", after))}, 3)
        print("a rerun of one day: " + ", ".join(f"{name.rsplit(', ', 1)[1]} month {statistics.median(times):.2f} s"
                                                for name, times in reruns.items()) + " (median of 3)", flush=True)
        spark.stop()
    return 0


def rerun(spark, root: Path) -> float:
    with root_at(root):
        began = time.perf_counter()
        load_day(spark, "2026-02-11")
        return time.perf_counter() - began


if __name__ == "__main__":
    raise SystemExit(main())
