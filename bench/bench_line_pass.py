"""A big load's one job with a till's common line found and typed by one Java pass over its bytes
(shoptoolkit/engine/java/shoptoolkit/CommonLine.java, rules_sql.java_common_line) against the same job with
rules_sql's pattern, split and casts instead, and plain Spark's read; each a noop write, alternating in one
warm session, on the year (365 files of 10,000 orders) and then on the million-order day.

    python bench/bench_line_pass.py              # about 5 minutes on 2 cores
    python bench/bench_line_pass.py --tries 1    # a quick look

A way's frame is held_write.written_days' (in_write.days_rows, then observed_facts, inside splits_of) with
the Delta write swapped for noop; "the pattern" makes it with in_write's java_common_line giving None, as
for a file with a new column. Before the timing, the rows of the two ways are shown the same (count,
summed xxhash64 of every column, the facts' text). A way's figure is its best try after a warm-up.
"""
import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_commits import YEAR, write_big_days  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from engine_refs import plain_read  # noqa: E402
from shoptoolkit.dates import run_dates  # noqa: E402
from shoptoolkit.storage.project_paths import day_file, root_at  # noqa: E402
from shoptoolkit.till import in_write  # noqa: E402
from shoptoolkit.till.day_frames import day_groups, split_size, splits_of  # noqa: E402
from shoptoolkit.writing.held_write import observed_facts  # noqa: E402

WAYS = ["Java common line", "the pattern", "plain Spark"]


@contextmanager
def pattern_way(way: str):
    """Inside, in_write makes the one job's frame with the pattern (way 'the pattern') or as it does."""
    java = in_write.java_common_line
    if way == "the pattern":
        in_write.java_common_line = lambda spark, columns: None
    try:
        yield
    finally:
        in_write.java_common_line = java


def frame(spark, days, way: str) -> tuple:
    """(rows, split, the headers' and the facts' Observations) as held_write.written_days makes them."""
    files = {day: in_write.file_header(day_file(day)) for day in days}
    sizes = {day: day_file(day).stat().st_size for day in files}
    most = split_size(spark, sum(sizes.values()))
    with pattern_way(way):
        rows, headers = in_write.days_rows(spark, files, day_groups(sizes, most))
    rows, facts = observed_facts(spark, rows)
    return rows, most, headers, facts


def timed(spark, days, way: str) -> float:
    began = time.perf_counter()
    if way == "plain Spark":
        plain_read(spark, days).write.format("noop").mode("overwrite").save()
        return time.perf_counter() - began
    rows, most, headers, _ = frame(spark, days, way)
    with splits_of(spark, most):
        rows.write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - began
    assert headers.get["lines"] == len(days), headers.get
    return seconds


def same_rows(spark, days) -> str:
    """The two ways' rows: their count, summed xxhash64 of every column and facts, shown equal."""
    from pyspark.sql import functions as F
    found = {}
    for way in WAYS[:2]:
        rows, most, _, facts = frame(spark, days, way)
        with splits_of(spark, most):
            sums = rows.agg(F.count("*"), F.sum(F.xxhash64(*rows.columns).cast("decimal(38,0)"))).first()
        found[way] = (sums[0], sums[1], facts.get["days"])
    assert found[WAYS[0]] == found[WAYS[1]], found
    return f"the same rows both ways: {found[WAYS[0]][0]:,}, xxhash64 sum {found[WAYS[0]][1]}, the same facts"


def run(spark, name: str, days: list, rounds: int) -> list:
    """A warm-up try of each way, then rounds of them alternating; the table's lines."""
    print(f"{name}: {same_rows(spark, days)}; warm-up " + ", ".join(
        f"{way} {timed(spark, days, way):.2f} s" for way in WAYS), flush=True)
    found = {way: [] for way in WAYS}
    for number in range(1, rounds + 1):
        for way in WAYS:
            found[way].append(timed(spark, days, way))
        print(f"  round {number}: " + ", ".join(f"{way} {found[way][-1]:.2f} s" for way in WAYS), flush=True)
    plain = min(found["plain Spark"])
    return [f"| {name} | {way} | {min(found[way]):.2f} s ({', '.join(f'{s:.2f}' for s in found[way])}) | "
            f"{min(found[way]) / plain:.2f}x |" for way in WAYS]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=3, help="timed tries a way, after one warm-up try")
    args = parser.parse_args(argv)
    print(f"== {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f}")
    table = ["| data | way | best (tries) | to plain Spark |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        write_big_days()
        year = list(run_dates(*YEAR))
        spark = delta_spark("bench_line_pass", commits=1, days=year)
        table += run(spark, "the year, 3.65 M lines", year, args.tries)
        write_big_day(BIG_DAY, BIG_ROWS)  # after the year: the big day is one of its days
        table += run(spark, "the day, 1 M lines", [BIG_DAY], args.tries)
        spark.stop()
    print("\n".join(table))
    print(f"== load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
