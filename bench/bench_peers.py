"""The toolkit beside Spark with a data-quality library (issue 65): the million-order day loaded and checked
by each, alternating in one warm session, then what each makes of that file with one bad last line; or
the year (365 files of 10,000 orders) loaded and checked in one commit by each.

    make bench-peers                                  # builds .venv-peers (requirements/peers.txt), runs both
    .venv-peers/bin/python bench/bench_peers.py       # the day, about 4 minutes on 2 cores
    .venv-peers/bin/python bench/bench_peers.py --what year                   # the year, a session of its own
    .venv-peers/bin/python bench/bench_peers.py --tries 1 --orders 20000      # a quick look

The ways: the toolkit's load_day + check_day; plain Spark (engine_refs.plain_day: the CSV read with the
table's schema, FAILFAST, replaceWhere of the day, a count); plain Spark with a groupBy count of repeated
ids before the write; pandera (PySpark), Great Expectations 1.x and DQX, each with the toolkit's rules
(peer_rules.py) on the file read as strings, then the same cast, replaceWhere and count. A way's figure
is its best try after a warm-up, with the peak memory (VmHWM) of Python and of the driver's JVM over its
tries (side_by_side.py). The references write root/plain/orders_daily, never the toolkit's table. For the
year each way writes a new table: the toolkit's backfill of its run dates in one commit (every day checked
after it), the others one replaceWhere of the year (peer_rules.read_strings' on_day gives each row its day).
"""
import argparse
import datetime as dt
import os
import re
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_commits import YEAR, YEAR_RUNS, timed_backfill, write_big_days  # noqa: E402
from bench_engine import BIG_RUN, top_line  # noqa: E402
from bench_refused import LAST_LINES  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from check_day import check_day  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from engine_refs import (clear_plain_table, days_predicate, plain_day, plain_days_anew, plain_orders,  # noqa: E402
                         plain_table, replaced)
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402
from peer_rules import CANNOT, PEERS, Refused, read_strings, typed  # noqa: E402
from shoptoolkit.dates import run_dates  # noqa: E402
from shoptoolkit.storage.project_paths import day_file, root_at, table_path  # noqa: E402
from side_by_side import best, shown_mb, tries  # noqa: E402



def toolkit_way(spark) -> tuple:
    began = time.perf_counter()
    load_day(spark, BIG_RUN)
    ok, checked = check_day(spark, BIG_RUN)
    assert ok, checked
    return time.perf_counter() - began, ""


def toolkit_year(spark) -> tuple:
    return timed_backfill(spark, *YEAR_RUNS, 0), ""


def plain_ids_way(spark, days: list) -> tuple:
    """Plain Spark, and a groupBy count of the ids before the write: the least a user would add."""
    if len(days) > 1:
        clear_plain_table()  # a new table, as for the toolkit's year
    began = time.perf_counter()
    orders = plain_orders(spark, days)
    twice = orders.groupBy("order_id").count().where("count > 1").first()
    if twice:
        raise Refused(f"order_id {twice['order_id']} appears {twice['count']} times")
    return replaced(spark, orders, days_predicate(days), began)


def peer_way(spark, peer: str, days: list) -> tuple:
    if len(days) > 1:
        clear_plain_table()
    day = BIG_DAY if len(days) == 1 else None
    began = time.perf_counter()
    frame = read_strings(spark, days)
    try:
        return replaced(spark, typed(PEERS[peer](spark, frame, day), day), days_predicate(days), began)
    finally:  # GX persists the frame it checks: the next way's read of the same file must not find it cached
        frame.unpersist()


def ways(spark, what: str) -> dict:
    days = [BIG_DAY] if what == "day" else list(run_dates(*YEAR))
    toolkit = partial(toolkit_way if what == "day" else toolkit_year, spark)
    plain = partial(plain_day, spark, BIG_DAY) if what == "day" else partial(plain_days_anew, spark, *YEAR)
    return {"toolkit": toolkit, "plain Spark": plain, "plain Spark + id groupBy": partial(plain_ids_way, spark, days),
            **{peer: partial(peer_way, spark, peer, days) for peer in PEERS}}


def version(spark, name: str) -> int:
    path = table_path() if name == "toolkit" else plain_table()
    return spark.sql(f"DESCRIBE HISTORY delta.`{path}` LIMIT 1").first()["version"]


def verdict(spark, name: str, way) -> str:
    """What way makes of the present file: its refusal's first line, and whether a version was added."""
    before = version(spark, name)
    try:
        way()
        said = "not refused"
    except Exception as refusal:  # each way's own kind: ToolkitError, Refused, Spark's errors
        said = f"{type(refusal).__name__}: {words(refusal)}"
    return f"{said}; {'written' if version(spark, name) != before else 'nothing written'}"


def words(refusal) -> str:
    """A refusal's words: of a Spark error (a Java trace), its deepest line naming an error class."""
    lines = [line.strip() for line in str(refusal).splitlines() if line.strip()]
    classed = [line for line in lines if re.search(r"\[[A-Z_.]+\] ", line)]
    return re.sub(r"^(Caused by: )?[\w.$]+(Exception|Error): ", "", (classed or lines)[-1 if classed else 0])[:220]


def bad_files(spark, found: dict, orders: int) -> dict:
    """Each way on the file with each of bench_refused.py's bad last lines: {(way, bad line): verdict}."""
    verdicts = {}
    for bad, line in LAST_LINES.items():
        write_big_day(BIG_DAY, orders)
        with open(day_file(BIG_DAY), "a") as handle:
            handle.write(line.replace(str(10_000_000 + BIG_ROWS), str(10_000_000 + orders)) + "\n")
        for name, way in found.items():
            verdicts[name, bad] = verdict(spark, name, way)
            print(f"  {bad}, {name}: {verdicts[name, bad]}", flush=True)
    return verdicts


def table(found: dict, verdicts: dict) -> list:
    plain = best(found, "plain Spark")
    memory = "peak Python, JVM (the JVM's grows all session)"
    bad = [bad for bad in LAST_LINES if verdicts]
    lines = [f"| way | best (tries) | to plain Spark | {memory} |" + "".join(f" {line} |" for line in bad),
             "|---|---|---|---|" + "---|" * len(bad)]
    for name, measured in found.items():
        seconds = ", ".join(f"{s:.1f}" for s, _, _ in measured)
        python, jvm = max(mb for _, mb, _ in measured), max((mb or 0) for _, _, mb in measured)
        lines.append(f"| {name} | {best(found, name):.1f} s ({seconds}) | {best(found, name) / plain:.2f}x | "
                     f"{shown_mb(python)}, {shown_mb(jvm)} |" + "".join(f" {verdicts[name, line]} |" for line in bad))
    return lines + [f"no peer can say: {CANNOT}"]


def run(what: str, orders: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        make_days()
        if what == "day":
            write_big_day(BIG_DAY, orders)  # before the session, as load_day.py finds it (the full JIT)
            spark = delta_spark("bench_peers", commits=1, days=[BIG_DAY])
            load_day(spark, "2026-09-02")  # a table holding a small day, as bench_engine.py's big day
            plain_day(spark, dt.date(2026, 9, 1))
        else:
            write_big_days()
            spark = delta_spark("bench_peers", commits=1, days=list(run_dates(*YEAR)))
        every = ways(spark, what)
        print("warm-up:", flush=True)
        tries(every, 1)
        print(f"timed, {rounds} rounds:", flush=True)
        found = tries(every, rounds)
        if what == "day":
            print("bad last lines:", flush=True)
        print("\n".join(table(found, bad_files(spark, every, orders) if what == "day" else {})), flush=True)
        spark.stop()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--what", choices=["day", "year"], default="day", help="the million-order day, or the year")
    parser.add_argument("--orders", type=int, default=BIG_ROWS, help="the day's orders (default 1,000,000)")
    parser.add_argument("--tries", type=int, default=3, help="timed tries a way, after one warm-up try")
    args = parser.parse_args(argv)
    print(f"== peers, the {args.what}{f' of {args.orders:,} orders' if args.what == 'day' else ''}: {top_line()}",
          flush=True)
    began = time.perf_counter()
    run(args.what, args.orders, args.tries)
    loads = ", ".join(f"{load:.2f}" for load in os.getloadavg())
    print(f"== {time.perf_counter() - began:.0f} s in all; load average after {loads}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
