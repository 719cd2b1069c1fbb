"""Benchmark of the checks inside Spark: the toolkit against plain Spark's minimal load, side by side.

    python bench/bench_engine.py                   # every part, each in a process of its own
    python bench/bench_engine.py --only big-day    # or crossover, year, september
    python bench/bench_engine.py --only big-day --session untold    # one kind of session only
    python bench/bench_engine.py --only big-day --session told --orders 5000000   # a day of 5 M orders

Rough times on 2 cores: crossover 4 minutes, big-day 6, year 8, september 12. Each part but september works
in a temporary root, in one Spark session. Its ways alternate (a, b, a, b); a ratio compares each way's best
try of the same run. The references (engine_refs.py) write tables of their own, never orders_daily. A try's
line ends with the peak memory (VmHWM) of Python and of the driver's JVM, reset before each try where Linux
allows it (side_by_side.py).

crossover: load_day of one day, its file checked in Python and then read and written, against the one job
that reads, checks and writes it (held_write.py), alternating, on days of 25,000 to 400,000 orders, in a
session with Java's full JIT: the smallest day on which the one job is the faster.
big-day: a day of 1,000,000 orders (bench_scale.py's file), after a small day. The toolkit's load_day then
check_day, three tries each, against plain Spark reading the file with the table's schema, replacing the day
(replaceWhere on a DATE literal) and counting; target 1.3x. Then delta-rs twice, if deltalake is installed
(requirements/bench.txt): a write, a count and a check that no order id repeats. It runs in three kinds of
session, each in a process of its own (SESSIONS): made with no days, as a notebook makes it; made knowing
its day, as load_day.py makes it; and with Java's C1 compiler alone whatever it was told, as a notebook's
was before sessions that last got the full JIT (docs/session.md).
year: 365 days of 10,000 orders (bench_commits.py's big-year files), after a warm-up. The toolkit's backfill
in one commit against plain Spark's one replaceWhere commit of the 365 files, each try into an empty table;
target 1.5x.
september: bench_commits.py's September (a commit a run, then one commit) in this tree and in a checkout of
--against (default BEFORE, the last commit whose every check ran in Python), alternating, each in a process
of its own: small days must not be more than 5% slower.
"""
import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_commits import YEAR, YEAR_RUNS, timed_backfill, write_big_days  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from check_day import check_day  # noqa: E402
from delta_session import delta_spark, session  # noqa: E402
from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import day_file, root_at
from shoptoolkit.table.delta_table import named_table
from engine_refs import plain_day, plain_days, plain_days_anew, rs_day, rs_missing  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402
from side_by_side import best, other_tree, shown_mb, tries  # noqa: E402

BIG_RUN = BIG_DAY + dt.timedelta(days=1)
DAY_TARGET, TARGET = 1.3, 1.5  # issue 41: the warm big day at most 1.3 times plain Spark's time, the year 1.5
BEFORE = "1e73928"  # the last commit whose every check ran in Python (its Spark path switched off)


def against_plain(found: dict, target: float = TARGET) -> list:
    """The toolkit's best try against plain Spark's, and the highest peaks of each way's tries."""
    toolkit, plain = best(found, "toolkit"), best(found, "plain Spark")
    lines = [f"toolkit {toolkit:.1f} s against plain Spark {plain:.1f} s: {toolkit / plain:.1f}x "
             f"(target {target}x: {'met' if toolkit / plain <= target else 'not met'})"]
    for name, measured in found.items():
        jvm = [mb for _, _, mb in measured if mb is not None]
        lines.append(f"  peak memory over {name}'s tries: Python {shown_mb(max(mb for _, mb, _ in measured))}, "
                     f"JVM {shown_mb(max(jvm) if jvm else None)}")
    return lines


def toolkit_day(spark, run_date) -> tuple:
    """The toolkit's run: load_day, then check_day (from the load's record); (seconds, the load's and the
    check's times, and, outside the run's time, check_day's --deep comparison of the rows)."""
    began = time.perf_counter()
    load_day(spark, run_date)
    loaded = time.perf_counter()
    ok, checked = check_day(spark, run_date)
    assert ok, checked
    ended = time.perf_counter()
    assert check_day(spark, run_date, deep=True) == (ok, checked)
    deep = time.perf_counter() - ended
    return ended - began, f" (load {loaded - began:.1f} s, check {ended - loaded:.2f} s; --deep {deep:.1f} s)"


def big_day(spark, kind: str = "told", orders: int = BIG_ROWS) -> list:
    make_days()
    load_day(spark, "2026-09-02")  # as bench_scale.py: a warm-up, and a table holding a small day
    plain_day(spark, dt.date(2026, 9, 1))  # the same small day in plain Spark's table
    write_big_day(BIG_DAY, orders)  # make_days wrote a small 15 September over it
    found = tries({"toolkit": partial(toolkit_day, spark, BIG_RUN),
                   "plain Spark": partial(plain_day, spark, BIG_DAY)}, 3)
    if kind != "told" or rs_missing():
        return against_plain(found, DAY_TARGET) + ([f"delta-rs skipped: {rs_missing()}"] if rs_missing() else [])
    rust = best(tries({"delta-rs": partial(rs_day, BIG_RUN)}), "delta-rs")
    return against_plain(found, DAY_TARGET) + [f"reference, delta-rs (no JVM), with a count and an id check: {rust:.1f} s"]


def crossover(spark) -> list:
    from shoptoolkit.till import in_spark
    make_days()
    load_day(spark, "2026-09-02")  # a table to load into

    def loaded(check_from: int) -> tuple:
        in_spark.SPARK_CHECK_BYTES = check_from
        began = time.perf_counter()
        load_day(spark, BIG_RUN)
        return time.perf_counter() - began, ""
    ways = {"Python": partial(loaded, 1 << 62), "one job": partial(loaded, 0)}
    write_big_day(BIG_DAY, 100_000)
    tries(ways, 1)
    lines, first = [], None
    for orders in (25_000, 50_000, 100_000, 200_000, 400_000):
        write_big_day(BIG_DAY, orders)
        size = day_file(BIG_DAY).stat().st_size
        print(f" {orders:,} orders, {size:,} bytes:", flush=True)
        found = tries(ways)
        python, one_job = best(found, "Python"), best(found, "one job")
        lines.append(f"{orders:>9,} orders ({size / 1e6:.1f} MB): Python's check and the write {python:.2f} s, "
                     f"one job {one_job:.2f} s")
        first = first or (size if one_job <= python else None)
    return lines + [f"the one job is the faster from {first:,} bytes on" if first
                    else "the one job was not the faster on any of these days"]


def backfilled(spark, first, last, per_commit: int) -> tuple:
    """backfill.py's runs first to last, days_per_commit=per_commit, into an empty orders_daily (timed_backfill)."""
    return timed_backfill(spark, first, last, per_commit), ""


def year(spark) -> list:
    timed_backfill(spark, "2026-09-02", "2026-09-06", 0)  # warm-up, as bench_commits.py's year
    plain_days(spark, dt.date(2026, 9, 1), dt.date(2026, 9, 5))
    return against_plain(tries({"toolkit": partial(backfilled, spark, *YEAR_RUNS, 0),
                                "plain Spark": partial(plain_days_anew, spark, *YEAR)}))


def september_side_by_side(against: str) -> None:
    """bench_commits.py's september part (a commit a run, then one commit, after its warm-up), in this
    tree and in a checkout of against (the toolkit before its checks moved into Spark), alternating,
    each in a process of its own; its two figures side by side."""
    with other_tree(ROOT, against) as before:
        found = {against: [], "this tree": []}
        for _ in range(2):
            for name, tree in ((against, before), ("this tree", ROOT)):
                found[name].append(september_figures(tree))
                print(f"  {name}: a commit a run {found[name][-1][0]:.1f} s, one commit "
                      f"{found[name][-1][1]:.1f} s", flush=True)
    for way, place in (("a commit a run", 0), ("one commit", 1)):
        old, new = (min(tries[place] for tries in found[name]) for name in (against, "this tree"))
        print(f"September, {way}: {new:.1f} s against {old:.1f} s at {against}: {(new / old - 1) * 100:+.1f}% "
              f"(at most +5%: {'met' if new <= 1.05 * old else 'not met'})")


def september_figures(tree: Path) -> tuple:
    """(a commit a run, one commit) in seconds, as tree's bench_commits.py --only september prints them."""
    done = subprocess.run([sys.executable, str(tree / "bench" / "bench_commits.py"), "--only", "september"],
                          cwd=tree, capture_output=True, text=True, check=True)
    line = next(line for line in done.stdout.splitlines() if line.startswith("September, 30 runs"))
    found = re.search(r"one commit a run ([0-9.]+) s, one commit ([0-9.]+) s", line)
    return float(found[1]), float(found[2])


PARTS = {"crossover": crossover, "big-day": big_day, "year": year}
# Sessions as the scripts start theirs: load_day.py's for the big day; backfill.py's for the rest, whose
# one commit keeps C1 only and whose 30 commits a run get Java's full JIT (backfill.commit_count).
COMMITS = {"crossover": 30, "big-day": 1, "year": 1}
SESSIONS = {"untold": "made with no days, as a notebook's", "told": "made knowing its days, as its script's",
            "c1": "Java's C1 compiler alone, as a notebook's was before"}
# The days whose files a part's session reads as its script's would be told (delta_spark's days): the
# big day's and the year's get the full JIT, as load_day.py's and backfill.py's do for them.
DAYS = {"big-day": [BIG_DAY], "year": list(run_dates(*YEAR))}


def top_line() -> str:
    """When (UTC), at which commit, and uptime's load average."""
    def git(*words):
        return subprocess.run(["git", *words], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    changed = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    loads = ", ".join(f"{load:.2f}" for load in os.getloadavg())
    return (f"{dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, at {git('rev-parse', '--short', 'HEAD')}"
            f"{changed}, load average {loads}")


def part_session(name: str, kind: str):
    """The part's session: told (as its script makes it: COMMITS and DAYS), untold (no count, no days, as
    a notebook makes it), or c1 (Java's C1 compiler alone, whatever it was told)."""
    app = f"bench_engine_{name}"
    if kind == "c1":
        return named_table(session(app, full_jit=False))
    if kind == "untold":
        return delta_spark(app)
    return delta_spark(app, commits=COMMITS[name], days=DAYS.get(name, ()))


def run_part(name: str, kind: str = "told", orders: int = BIG_ROWS) -> None:
    size = f", {orders:,} orders" if name == "big-day" else ""
    print(f"== {name}, session {kind} ({SESSIONS[kind]}){size}: {top_line()}", flush=True)
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        if name in ("big-day", "year"):  # its files, written before the session starts, as a script finds them
            write_big_day(BIG_DAY, orders) if name == "big-day" else write_big_days()
        spark = part_session(name, kind)
        print("\n".join(PARTS[name](spark, kind, orders) if name == "big-day" else PARTS[name](spark)), flush=True)
        spark.stop()
    loads = ", ".join(f"{load:.2f}" for load in os.getloadavg())
    print(f"== {name}: {time.perf_counter() - began:.0f} s in all; load average after {loads}", flush=True)


def big_day_sessions() -> None:
    """The big-day part in each kind of session, each in a process of its own, then their best tries."""
    found = {}
    for kind in SESSIONS:
        done = subprocess.run([sys.executable, __file__, "--only", "big-day", "--session", kind],
                              capture_output=True, text=True, check=True)
        print(done.stdout, end="", flush=True)
        times = re.search(r"toolkit ([0-9.]+) s against plain Spark ([0-9.]+) s", done.stdout)
        found[kind] = float(times[1]), float(times[2])
    (untold, plain_untold), (told, plain_told) = found["untold"], found["told"]
    print(f"big day, load + check: a session made with no days {untold:.1f} s against one made knowing its "
          f"day {told:.1f} s: {(untold / told - 1) * 100:+.1f}% (target within 10%: "
          f"{'met' if untold <= 1.1 * told else 'not met'}); plain Spark {plain_untold:.1f} s and "
          f"{plain_told:.1f} s; with C1 only {found['c1'][0]:.1f} s, plain Spark {found['c1'][1]:.1f} s", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=[*PARTS, "september"], help="run one part only")
    parser.add_argument("--session", choices=SESSIONS, help="big-day: one kind of session only (default: each)")
    parser.add_argument("--against", default=BEFORE, help=f"september's other tree (default {BEFORE})")
    parser.add_argument("--orders", type=int, default=BIG_ROWS, help="big-day with --session: the day's orders")
    args = parser.parse_args(argv)
    if args.only is None:  # each part in a process of its own: its own JVM, its own peak memory
        for name in PARTS:
            subprocess.run([sys.executable, __file__, "--only", name], check=True)
    if args.only in (None, "september"):
        print(f"== september: {top_line()}", flush=True)
        september_side_by_side(args.against)
        return 0
    if args.only == "big-day" and args.session is None:
        big_day_sessions()
        return 0
    run_part(args.only, args.session or "told", args.orders)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
