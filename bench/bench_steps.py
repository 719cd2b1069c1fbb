"""Where a big load's time goes, step by step, in one warm session: the profile behind docs/benchmarks.md.

    python bench/bench_steps.py day      # the million-order day: load_day's steps, then plain Spark's load
    python bench/bench_steps.py year     # the year of 3.65 M rows in one commit: load_days' steps, then plain Spark's
    python bench/bench_steps.py day --tries 6

Each step is timed by wrapping the toolkit's own function in its module for this process (the code is
not changed): the one job that reads, checks, counts and writes (held_write.written_days, with Python's
sha256 beside it); for the day, the version, clash and late-clash looks; for the year, the looks and the commit (write_days), the check after it
(run_lines), and the two-pass check (checked_files), which only a refused file or a clash calls. What
is left of a try is the rest: the plan, the count after the load. Each try is followed by plain
Spark's load (engine_refs.py) in the same session; the first tries warm the JIT.
"""
import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import load_day  # noqa: E402
from bench_commits import YEAR, YEAR_RUNS, timed_backfill, write_big_days  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from engine_refs import plain_day, plain_days_anew  # noqa: E402
from make_days import make_days  # noqa: E402
from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import root_at
from shoptoolkit.writing import commit_days, held_write

STEPS = {"day": [(held_write, "written_days", "the job"), (load_day, "version_checked", "version look"),
                 (load_day, "clash_refusal", "clash look"), (load_day, "take_back_late_clashes", "late-clash look")],
         "year": [(held_write, "written_days", "the job"), (commit_days, "write_days", "looks and commit"),
                  (commit_days, "run_lines", "check after"), (commit_days, "checked_files", "the two-pass check")]}


def timing(module, name: str, label: str, spent: dict) -> None:
    """module.name, for this process, adds the seconds of each of its calls to spent[label]."""
    inner = getattr(module, name)

    def timed(*args, **kwargs):
        began = time.perf_counter()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.perf_counter() - began
    setattr(module, name, timed)


def seconds(work) -> float:
    began = time.perf_counter()
    work()
    return time.perf_counter() - began


def ways(what: str) -> tuple:
    """(a session, the toolkit's try, plain Spark's try) for what, its files written and warmed up."""
    if what == "year":
        write_big_days()
        spark = delta_spark("bench_steps", commits=1, days=list(run_dates(*YEAR)))
        timed_backfill(spark, "2026-09-02", "2026-09-06", 0)  # a warm-up, as bench_engine.py's year
        return (spark, lambda: timed_backfill(spark, *YEAR_RUNS, 0), lambda: plain_days_anew(spark, *YEAR))
    write_big_day(BIG_DAY, BIG_ROWS)
    spark = delta_spark("bench_steps", commits=1, days=[BIG_DAY])
    make_days()  # a small table first, as bench_engine.py's big day
    load_day.load_day(spark, "2026-09-02")
    plain_day(spark, dt.date(2026, 9, 1))
    write_big_day(BIG_DAY, BIG_ROWS)
    return (spark, lambda: load_day.load_day(spark, BIG_DAY + dt.timedelta(days=1)), lambda: plain_day(spark, BIG_DAY))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=STEPS)
    parser.add_argument("--tries", type=int, default=4)
    args = parser.parse_args(argv)
    spent = {}
    for module, name, label in STEPS[args.what]:
        timing(module, name, label, spent)
    print(f"== {args.what}, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        spark, toolkit, plain = ways(args.what)
        for number in range(1, args.tries + 1):
            spent.clear()
            total, reference = seconds(toolkit), seconds(plain)
            steps = "; ".join(f"{label} {spent.get(label, 0.0):.2f} s" for _, _, label in STEPS[args.what])
            print(f"try {number}: toolkit {total:.1f} s ({steps}; the rest {total - sum(spent.values()):.2f} s), "
                  f"plain Spark {reference:.1f} s", flush=True)
        spark.stop()
    print(f"== load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
