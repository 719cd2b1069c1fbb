"""Benchmark: a backfill in one Delta commit (--days-per-commit) against one commit a run, side by side.

    python bench/bench_commits.py                  # every part (about 10 minutes on 2 cores)
    python bench/bench_commits.py --only september # or year, big-year

september: in one Spark session, after its start and a short warm-up, the 30 runs of September as
backfill.py runs them by default (a commit and a check a run), then in one commit checked in one
query (--days-per-commit all), and two references: the course's simple loop (read the CSV with a
schema, replaceWhere the day, count: no checks) and delta-rs replacing the range in one write.
year: 365 days (2025-10-01 .. 2026-09-30) in one commit, and in commits of 31 days.
big-year: the same year with 10,000 orders a day (3.65 M rows) in one commit, in a process of its
own: its time, the line-by-line check's time per million lines (Python alone), and the peak memory
(VmHWM) of the Python process and of the JVM.
"""
import argparse
import datetime as dt
import os
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
from shoptoolkit.table_schema import columns_ddl
from shoptoolkit.till.in_python import read_day_file
from backfill import backfill  # noqa: E402
from make_days import clean_table, make_days  # noqa: E402

SEPTEMBER = ("2026-09-02", "2026-10-01")
YEAR = (dt.date(2025, 10, 1), dt.date(2026, 9, 30))
YEAR_RUNS = (str(YEAR[0] + dt.timedelta(days=1)), str(YEAR[1] + dt.timedelta(days=1)))
BIG_ORDERS = 10_000


def timed_backfill(spark, first, last, per_commit: int) -> float:
    clean_table()
    began = time.perf_counter()
    failed, closing = backfill(spark, first, last, show=lambda line: None, days_per_commit=per_commit)
    seconds = time.perf_counter() - began
    assert not failed, closing
    return seconds


def course_loop(spark, first, last) -> float:
    """The course's own simple loop, into a table of its own: per run, read the CSV with a schema,
    replaceWhere the day, count the table. No line check, no clash check, no check of the day."""
    from pyspark.sql import functions as F
    path, began = str(table_path().with_name("orders_course_loop")), time.perf_counter()
    for run_date in run_dates(first, last):
        day = day_loaded_by(run_date)
        (spark.read.schema(columns_ddl()).option("header", True).csv(str(day_file(day)))
         .withColumn("order_date", F.lit(day)).write.format("delta").mode("overwrite")
         .option("replaceWhere", f"order_date = DATE'{day}'").save(path))
        spark.read.format("delta").load(path).count()
    return time.perf_counter() - began


def deltalake_range(first, last) -> float:
    """delta-rs (no JVM) replacing the range's days in one write; no checks. None without deltalake."""
    try:
        import pyarrow as pa
        from deltalake import write_deltalake
        from pyarrow import compute, csv
    except ImportError:
        return None
    types = {"order_id": pa.int64(), "customer_id": pa.string(), "amount": pa.decimal128(12, 2),
             "ordered_at": pa.timestamp("us")}
    began, days, tables = time.perf_counter(), [day_loaded_by(d) for d in run_dates(first, last)], []
    for day in days:
        orders = csv.read_csv(day_file(day), convert_options=csv.ConvertOptions(column_types=types))
        orders = orders.set_column(3, "ordered_at", compute.assume_timezone(orders["ordered_at"], "UTC"))
        tables.append(orders.append_column("order_date", pa.array([day] * orders.num_rows, pa.date32())))
    write_deltalake(str(table_path().with_name("orders_daily_rs")), pa.concat_tables(tables), mode="overwrite",
                    predicate=f"order_date >= '{days[0]}' AND order_date <= '{days[-1]}'")
    return time.perf_counter() - began


def september(spark) -> list:
    make_days()
    timed_backfill(spark, "2026-09-02", "2026-09-06", 1)  # warm-up: the same code paths once each
    timed_backfill(spark, "2026-09-02", "2026-09-06", 0)
    course_loop(spark, "2026-09-02", "2026-09-04")
    per_run = timed_backfill(spark, *SEPTEMBER, 1)
    one_commit = timed_backfill(spark, *SEPTEMBER, 0)
    loop, rust = course_loop(spark, *SEPTEMBER), deltalake_range(*SEPTEMBER)
    return [f"September, 30 runs, after Spark's start: one commit a run {per_run:.1f} s, "
            f"one commit {one_commit:.1f} s: {per_run / one_commit:.1f}x faster (target 10x)",
            f"  reference, the course's simple loop (no checks), one commit a run: {loop:.1f} s",
            f"  reference, delta-rs replacing the 30 days in one write (no checks): "
            + (f"{rust:.2f} s" if rust is not None else "deltalake not installed (requirements/bench.txt)")]


def year(spark) -> list:
    make_days(*YEAR)
    timed_backfill(spark, "2026-09-02", "2026-09-06", 0)  # warm-up
    one_commit = timed_backfill(spark, *YEAR_RUNS, 0)
    by_month = timed_backfill(spark, *YEAR_RUNS, 31)
    return [f"a year, 365 days, after Spark's start: one commit {one_commit:.1f} s (target 30 s), "
            f"commits of 31 days (12) {by_month:.1f} s"]


def write_big_days() -> None:
    """A year of BIG_ORDERS orders a day, ids growing day by day."""
    folder = day_file(YEAR[0]).parent
    folder.mkdir(parents=True, exist_ok=True)
    for number, day in enumerate(run_dates(*YEAR)):
        first = 10_000_000 + number * BIG_ORDERS
        lines = [f"{first + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},"
                 f"{day}T{i * 86400 // BIG_ORDERS // 3600:02d}:{i * 86400 // BIG_ORDERS // 60 % 60:02d}:"
                 f"{i * 86400 // BIG_ORDERS % 60:02d}\n" for i in range(BIG_ORDERS)]
        day_file(day).write_text("order_id,customer_id,amount,ordered_at\n" + "".join(lines))


def big_year(spark) -> list:
    write_big_days()
    began = time.perf_counter()
    lines = sum(read_day_file(day).count for day in run_dates(*YEAR))
    per_million = (time.perf_counter() - began) / lines * 1e6
    one_commit = timed_backfill(spark, *YEAR_RUNS, 0)
    jvm = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    return [f"a year of {BIG_ORDERS:,} orders a day ({lines:,} rows) in one commit: {one_commit:.1f} s after "
            f"Spark's start",
            f"  the line-by-line check and hash alone (Python): {per_million:.1f} s per million lines",
            f"  peak memory: Python process {peak_mb(os.getpid()):.0f} MB, JVM {peak_mb(jvm):.0f} MB"]


def peak_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


PARTS = {"september": september, "year": year, "big-year": big_year}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=PARTS, help="run one part only")
    args = parser.parse_args(argv)
    if args.only is None:  # each part in a process of its own: its own JVM, its own peak memory
        for name in PARTS:
            subprocess.run([sys.executable, __file__, "--only", name], check=True)
        return 0
    print(f"{args.only}: load average before {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        # As backfill.py starts it: September's session runs 30 runs a way (a lasting one, Java's full JIT),
        # a year's few commits keep C1 only (spark_jvm.LASTING_RUNS, backfill.commit_count).
        spark = delta_spark(f"bench_{args.only}", commits=30 if args.only == "september" else 1)
        print("\n".join(PARTS[args.only](spark)))
        spark.stop()
    print(f"{args.only}: load average after {os.getloadavg()[0]:.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
