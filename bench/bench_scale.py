"""Benchmark: a year of daily runs in one Spark session, and a 1,000,000-order day.

    python bench/bench_scale.py                 # both parts (about 15 minutes on 2 cores)
    python bench/bench_scale.py --only year     # or --only big-day

year: make_days --from 2025-10-01 --to 2026-09-30, then the 365 runs that load them, in one session;
prints the median time of the first 30 and of the last 30 runs (a run must not cost more as the table
grows) and the whole time. big-day: one day of 1,000,000 orders loaded and checked in one session;
prints each step's time, the Python process's peak memory (VmHWM) and the JVM heap in use after.
"""
import argparse
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from delta_session import delta_spark  # noqa: E402
from tree_names import day_file, root_at, run_dates  # noqa: E402
from backfill import run_one, table_summary  # noqa: E402
from check_day import check_day  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402

YEAR = (dt.date(2025, 10, 1), dt.date(2026, 9, 30))
BIG_DAY, BIG_ROWS = dt.date(2026, 9, 15), 1_000_000


def year(spark) -> list:
    make_days(*YEAR)
    seconds = []
    for place, run_date in enumerate(run_dates(YEAR[0] + dt.timedelta(days=1), YEAR[1] + dt.timedelta(days=1)), 1):
        began = time.perf_counter()
        ok, line = run_one(spark, run_date)
        seconds.append(time.perf_counter() - began)
        assert ok, line
        if place % 30 == 0:
            print(f"  {place}/365 {line}", flush=True)
    return [f"365 runs in one session: {sum(seconds):.0f} s; {table_summary(spark)}",
            f"median a run (load + check), first 30: {statistics.median(seconds[:30]):.2f} s, "
            f"last 30: {statistics.median(seconds[-30:]):.2f} s"]


def write_big_day(day=BIG_DAY, orders: int = BIG_ROWS) -> None:
    """A valid file of orders for day, ids from 10,000,000, spread over the day."""
    day_file(day).parent.mkdir(parents=True, exist_ok=True)
    with open(day_file(day), "w") as handle:
        handle.write("order_id,customer_id,amount,ordered_at\n")
        for i in range(orders):
            second = i * 86400 // orders
            handle.write(f"{10_000_000 + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},"
                         f"{day}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}\n")


def big_day(spark) -> list:
    make_days()
    run_after = BIG_DAY + dt.timedelta(days=1)
    load_day(spark, "2026-09-02")
    write_big_day()
    began = time.perf_counter()
    loaded = load_day(spark, run_after)
    loading = time.perf_counter() - began
    began = time.perf_counter()
    ok, checked = check_day(spark, run_after)
    checking = time.perf_counter() - began
    assert ok, checked
    return [f"{loaded} in {loading:.1f} s", f"{checked} in {checking:.1f} s",
            f"peak memory of the Python process: {peak_rss_mb():.0f} MB; JVM heap in use: {heap_used_mb(spark):.0f} MB"]


def peak_rss_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024


def heap_used_mb(spark) -> float:
    memory = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getMemoryMXBean()
    return memory.getHeapMemoryUsage().getUsed() / 2 ** 20


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("year", "big-day"), help="run one part only")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    lines = []
    for name, part in (("year", year), ("big-day", big_day)):
        if args.only in (None, name):
            with tempfile.TemporaryDirectory() as folder, root_at(folder):
                spark = delta_spark(f"bench_{name}", commits=365 if name == "year" else 1)  # as backfill.py and load_day.py
                lines += part(spark)
                spark.stop()
    print("\n".join(lines))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
