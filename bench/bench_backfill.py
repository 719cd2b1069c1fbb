"""Benchmark: September's backfill in one Spark session against 30 separate load_day processes.

    python bench/bench_backfill.py              # all 30 runs each way (about 10 minutes on 2 cores)
    python bench/bench_backfill.py --runs 5     # a quicker look: the first 5 run dates each way

Works in a temporary folder; prints Spark's start time, the time per run inside the one-session
backfill, the whole backfill, the same runs as separate `python load_day.py` processes, and the ratio.
"""
import argparse
import datetime as dt
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delta_session import delta_spark, run_dates  # noqa: E402
from backfill import run_one, table_summary  # noqa: E402
from make_days import clean_table, make_days  # noqa: E402

FIRST = dt.date(2026, 9, 2)


def one_session(dates) -> tuple:
    """Spark's start time, each run's time, and the whole backfill's time, in this process."""
    started = time.perf_counter()
    spark = delta_spark("bench_backfill")
    spark_start = time.perf_counter() - started
    per_run = []
    for run_date in dates:
        began = time.perf_counter()
        ok, line = run_one(spark, run_date)
        per_run.append(time.perf_counter() - began)
        assert ok, line
    print(f"  one session: {table_summary(spark)}")
    spark.stop()
    return spark_start, per_run, spark_start + sum(per_run)


def separate_processes(dates) -> float:
    """The same runs as `python load_day.py RUN_DATE`, one process each, one after the other."""
    started = time.perf_counter()
    for run_date in dates:
        subprocess.run([sys.executable, str(ROOT / "load_day.py"), str(run_date)], check=True,
                       stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="how many run dates from 2026-09-02")
    args = parser.parse_args(argv)
    dates = run_dates(FIRST, FIRST + dt.timedelta(days=args.runs - 1))
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        make_days()
        spark_start, per_run, whole = one_session(dates)
        clean_table()
        processes = separate_processes(dates)
    warm = per_run[len(per_run) // 3:] or per_run
    print(f"Spark start (Delta JARs cached): {spark_start:.1f} s")
    print(f"per run inside the one-session backfill (load + check): median {statistics.median(per_run):.2f} s, "
          f"first {per_run[0]:.2f} s, median of the last two thirds {statistics.median(warm):.2f} s")
    print(f"one-session backfill of {len(dates)} runs, Spark start included: {whole:.1f} s")
    print(f"{len(dates)} separate load_day.py processes: {processes:.1f} s")
    print(f"ratio: the one-session backfill is {processes / whole:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
