"""Benchmark: September's backfill in one Spark session, against 30 separate processes and delta-rs.

    python bench/bench_backfill.py              # all 30 runs each way (about 15 minutes on 2 cores)
    python bench/bench_backfill.py --runs 5     # a quicker look: the first 5 run dates each way
    python bench/bench_backfill.py --skip processes    # leave out a part: partitioned, processes, deltalake

Works in a temporary folder. Prints Spark's start time; for each run inside the one-session backfill
its Spark jobs (load and check, counted by job group with the status tracker) and its wall time; the
whole backfill; the same runs into a table partitioned by order_date (SHOP_PARTITIONED=1); the same
runs as separate `python load_day.py` processes, and the ratio; and, as a reference, the same per-day replaces with the `deltalake` package (delta-rs, no JVM), which
`pip install -r requirements/bench.txt` adds.
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

from delta_session import delta_spark  # noqa: E402
from shoptoolkit.dates import day_loaded_by, run_dates
from shoptoolkit.storage.project_paths import day_file, root_at, table_path
from shoptoolkit.table.delta_table import PARTITIONED_ENV
from backfill import table_summary  # noqa: E402
from check_day import check_day  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import clean_table, make_days  # noqa: E402

FIRST = dt.date(2026, 9, 2)


def jobs_in(spark, group: str) -> int:
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(group))


def timed_run(spark, run_date) -> tuple:
    """Load and check one run date, each under its own job group; return (seconds, load jobs, check jobs)."""
    context = spark.sparkContext
    began = time.perf_counter()
    context.setJobGroup(f"load {run_date}", "bench")
    load_day(spark, run_date)
    context.setJobGroup(f"check {run_date}", "bench")
    ok, line = check_day(spark, run_date)
    assert ok, line
    seconds = time.perf_counter() - began
    context.setJobGroup("bench", "bench")
    return seconds, jobs_in(spark, f"load {run_date}"), jobs_in(spark, f"check {run_date}")


def one_session(dates, show) -> tuple:
    """Spark's start time, each run's (seconds, load jobs, check jobs), and the whole backfill's time."""
    started = time.perf_counter()
    spark = delta_spark("bench_backfill", commits=len(dates))  # as backfill.py starts it
    spark_start = time.perf_counter() - started
    runs = []
    for place, run_date in enumerate(dates, start=1):
        runs.append(timed_run(spark, run_date))
        seconds, load, check = runs[-1]
        show(f"  {place}/{len(dates)} run {run_date}: {seconds:.2f} s, Spark jobs {load} load + {check} check")
    show(f"  one session: {table_summary(spark)}")
    spark.stop()
    return spark_start, runs, spark_start + sum(seconds for seconds, _, _ in runs)


def partitioned_session(dates, show) -> list:
    """one_session's runs again, into a new table partitioned by order_date: each run's (seconds, load jobs, check jobs)."""
    clean_table()
    os.environ[PARTITIONED_ENV] = "1"
    try:
        return one_session(dates, show)[1]
    finally:
        del os.environ[PARTITIONED_ENV]


def separate_processes(dates) -> float:
    """The same runs as `python load_day.py RUN_DATE`, one process each, one after the other."""
    started = time.perf_counter()
    for run_date in dates:
        subprocess.run([sys.executable, str(ROOT / "load_day.py"), str(run_date)], check=True,
                       stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def deltalake_replaces(dates) -> list:
    """The same per-day replaces with delta-rs: read the day's CSV with pyarrow, overwrite where
    order_date is that day. Returns each run's seconds (no check, no clash check: a reference)."""
    import pyarrow as pa
    from pyarrow import compute, csv
    from deltalake import write_deltalake
    types = {"order_id": pa.int64(), "customer_id": pa.string(), "amount": pa.decimal128(12, 2),
             "ordered_at": pa.timestamp("us")}  # the till writes UTC without an offset
    path, seconds = str(table_path().with_name("orders_daily_rs")), []
    for run_date in dates:
        began, day = time.perf_counter(), day_loaded_by(run_date)
        orders = csv.read_csv(day_file(day), convert_options=csv.ConvertOptions(column_types=types))
        orders = orders.set_column(3, "ordered_at", compute.assume_timezone(orders["ordered_at"], "UTC"))
        orders = orders.append_column("order_date", pa.array([day] * orders.num_rows, pa.date32()))
        write_deltalake(path, orders, mode="overwrite", predicate=f"order_date = '{day}'")
        seconds.append(time.perf_counter() - began)
    return seconds


def medians(values) -> str:
    warm = values[1:] or values
    return f"median {statistics.median(values):.2f} s, first {values[0]:.2f} s, median after the first {statistics.median(warm):.2f} s"


def jobs_line(runs) -> str:
    later = runs[1:] or runs
    return (f"load median {statistics.median(r[1] for r in later):g}, check median "
            f"{statistics.median(r[2] for r in later):g}, most {max(r[1] + r[2] for r in later)}")


def report(dates, spark_start, runs, whole, partitioned, processes, rust) -> list:
    lines = [f"Spark start (Delta JARs cached): {spark_start:.1f} s",
             f"per run inside the one-session backfill (load + check): {medians([r[0] for r in runs])}",
             f"Spark jobs per run after the first: {jobs_line(runs)}",
             f"one-session backfill of {len(dates)} runs, Spark start included: {whole:.1f} s"]
    if partitioned is not None:
        lines += [f"the same runs into a table partitioned by order_date: {medians([r[0] for r in partitioned])}",
                  f"  Spark jobs per run after the first: {jobs_line(partitioned)}"]
    if processes is not None:
        lines += [f"{len(dates)} separate load_day.py processes: {processes:.1f} s",
                  f"ratio: the one-session backfill is {processes / whole:.1f}x faster"]
    if rust is not None:
        lines.append(f"reference, delta-rs (deltalake) per-day replace: {medians(rust)}, {sum(rust):.1f} s in all")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30, help="how many run dates from 2026-09-02")
    parser.add_argument("--skip", action="append", choices=("partitioned", "processes", "deltalake"), default=[],
                        help="leave out a part of the benchmark")
    args = parser.parse_args(argv)
    dates = run_dates(FIRST, FIRST + dt.timedelta(days=args.runs - 1))
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder, root_at(folder):  # the load_day.py processes too (SHOP_ROOT)
        make_days()
        spark_start, runs, whole = one_session(dates, lambda line: print(line, flush=True))
        rust = None if "deltalake" in args.skip else deltalake_or_none(dates)
        show = lambda line: print(line, flush=True)  # noqa: E731
        partitioned = None if "partitioned" in args.skip else partitioned_session(dates, show)
        clean_table()
        processes = None if "processes" in args.skip else separate_processes(dates)
    print("\n".join(report(dates, spark_start, runs, whole, partitioned, processes, rust)))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


def deltalake_or_none(dates):
    try:
        import deltalake  # noqa: F401
    except ImportError:
        print("  deltalake is not installed (pip install -r requirements/bench.txt): no delta-rs reference")
        return None
    return deltalake_replaces(dates)


if __name__ == "__main__":
    raise SystemExit(main())
