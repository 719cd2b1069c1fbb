"""Benchmark: the million-order day whose file gains a column, loaded by the toolkit with
--on-new-column add against plain Spark with mergeSchema, beside the same day without the column.

    python bench/bench_new_column.py                 # 1,000,000 orders, 3 timed tries a way (about 5 minutes)
    python bench/bench_new_column.py --orders 100000 --tries 1

One warm session, the ways alternating (side_by_side.tries), each try on a fresh copy of a table that
holds one small day without the column, so that every try of a "+ channel" way adds the column:
  toolkit              load_day + check_day of the day, the till's four columns
  plain Spark          engine_refs.plain_day: the CSV read with the table's schema, FAILFAST, replaceWhere
  toolkit + channel    load_day(on_new_column="add") + check_day: the day's commit adds `channel`, the
                       day read, checked and written in one job (its held write takes mergeSchema)
  two-pass + channel   the same, load_day's one job turned off for the try (load_day.one_job_fits answers
                       no): the file checked inside Spark, then read again for a mergeSchema write, as every
                       adding load did before the held write took mergeSchema
  plain + channel      the schema and `channel STRING`, FAILFAST, replaceWhere with mergeSchema, a count
"""
import argparse
import datetime as dt
import itertools
import os
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import top_line  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from check_day import check_day  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from engine_refs import plain_day, plain_table, replaced  # noqa: E402
import load_day as load_day_script  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402
from shoptoolkit.storage.project_paths import day_file, root_at, table_path  # noqa: E402
from shoptoolkit.table_schema import PARTITION_COLUMN, columns_ddl  # noqa: E402
from side_by_side import best, tries  # noqa: E402

WITH_COLUMN = BIG_DAY + dt.timedelta(days=2)  # the same orders, a day later, with `channel`
TRIES = itertools.count(1)


def with_channel(source: Path, target: Path, day) -> None:
    """source's orders on day, each line ending in a channel (web, store)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(source) as lines, open(target, "w") as out:
        out.write(next(lines).rstrip("\n") + ",channel\n")
        for number, line in enumerate(lines):
            out.write(line.rstrip("\n").replace(f"{BIG_DAY}T", f"{day}T") + (",web\n" if number % 3 else ",store\n"))


def fresh(base: Path) -> Path:
    """A root of its own for one try: the landing files linked, the tables copied from base's."""
    root = base.parent / f"try{next(TRIES)}"
    root.mkdir()
    (root / "landing").symlink_to(base / "landing")
    for name in ("lake", "plain"):
        shutil.copytree(base / name, root / name)
    return root


@contextmanager
def one_job_off(off: bool):
    """load_day's one job turned off while inside, when off: the two-pass way's load."""
    kept = load_day_script.one_job_fits
    if off:
        load_day_script.one_job_fits = lambda *args: False
    try:
        yield
    finally:
        load_day_script.one_job_fits = kept


def toolkit(spark, base, day, mode=None, two_pass=False) -> tuple:
    with root_at(fresh(base)), one_job_off(two_pass):
        began = time.perf_counter()
        load_day(spark, day + dt.timedelta(days=1), on_new_column=mode)
        ok, checked = check_day(spark, day + dt.timedelta(days=1))
        assert ok, checked
        return time.perf_counter() - began, ""


def plain(spark, base) -> tuple:
    with root_at(fresh(base)):
        return plain_day(spark, BIG_DAY)


def plain_with_channel(spark, base) -> tuple:
    """Plain Spark's load of the day with its new column: the schema it now has, mergeSchema on the write."""
    from pyspark.sql import functions as F
    with root_at(fresh(base)):
        began = time.perf_counter()
        orders = (spark.read.schema(f"{columns_ddl()}, channel STRING")
                  .options(header=True, mode="FAILFAST", timestampFormat="yyyy-MM-dd'T'HH:mm:ss")
                  .csv(str(day_file(WITH_COLUMN))).withColumn(PARTITION_COLUMN, F.lit(WITH_COLUMN)))
        (orders.write.format("delta").mode("overwrite").option("mergeSchema", "true")
         .option("replaceWhere", f"{PARTITION_COLUMN} = DATE'{WITH_COLUMN}'").save(str(plain_table())))
        rows = spark.read.format("delta").load(str(plain_table())).count()
        return time.perf_counter() - began, f" ({rows:,} rows in the table)"


def run(orders: int, rounds: int) -> list:
    with tempfile.TemporaryDirectory() as folder, root_at(Path(folder) / "base") as base:
        base = Path(base)
        make_days()
        write_big_day(BIG_DAY, orders)
        with_channel(day_file(BIG_DAY), day_file(WITH_COLUMN), WITH_COLUMN)
        spark = delta_spark("bench_new_column", commits=1, days=[BIG_DAY])
        load_day(spark, "2026-09-02")  # the table holds a small day, the till's columns only
        plain_day(spark, dt.date(2026, 9, 1))
        assert "channel" not in spark.read.format("delta").load(str(table_path())).columns
        ways = {"toolkit": partial(toolkit, spark, base, BIG_DAY),
                "plain Spark": partial(plain, spark, base),
                "toolkit + channel": partial(toolkit, spark, base, WITH_COLUMN, "add"),
                "two-pass + channel": partial(toolkit, spark, base, WITH_COLUMN, "add", True),
                "plain + channel": partial(plain_with_channel, spark, base)}
        print("warm-up:", flush=True)
        tries(ways, 1)
        print(f"timed, {rounds} rounds:", flush=True)
        found = tries(ways, rounds)
        spark.stop()
    figures = {name: best(found, name) for name in ways}
    return [f"{name}: {figures[name]:.1f} s" for name in ways] + [
        f"the till's columns: toolkit {figures['toolkit'] / figures['plain Spark']:.2f}x plain Spark",
        f"a new column added: toolkit {figures['toolkit + channel'] / figures['plain + channel']:.2f}x "
        f"plain Spark with mergeSchema, the two-pass way "
        f"{figures['two-pass + channel'] / figures['plain + channel']:.2f}x"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orders", type=int, default=BIG_ROWS, help="the day's orders (default 1,000,000)")
    parser.add_argument("--tries", type=int, default=3, help="timed tries a way, after one warm-up try")
    args = parser.parse_args(argv)
    print(f"== new column, {args.orders:,} orders: {top_line()}", flush=True)
    began = time.perf_counter()
    print("\n".join(run(args.orders, args.tries)), flush=True)
    loads = ", ".join(f"{load:.2f}" for load in os.getloadavg())
    print(f"== {time.perf_counter() - began:.0f} s in all; load average after {loads}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
