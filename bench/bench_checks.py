"""Benchmark: the checks of this tree against a tree before they compared values (issue 53), side by side.

    python bench/bench_checks.py                     # this tree against AGAINST, alternating, 2 rounds
    python bench/bench_checks.py --against COMMIT
    python bench/bench_checks.py --rounds 1          # each tree once
    python bench/bench_checks.py --tree DIR          # one tree's figures only (what a round runs)

A tree's figures come from a process of its own (its own Spark session, its code first on the path), in
a temporary root: September backfilled a commit a run (its checks from the loads' records), then
check_month of September from the records (no data file read), OPTIMIZE (every file rewritten, so no
record proves a day), check_month again (every day compared with its file), and check_day --deep of
all 30 days; then a day of 1,000,000 orders (bench_scale.py's file) loaded and its check_day --deep
(compared inside Spark). Each check is timed three times; the best is kept.
"""
import argparse
import datetime as dt
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGAINST = "68719a6"  # main before the checks compared values
FIGURES = ("september backfill", "check_month (records)", "check_month (rows)", "30 check_day --deep",
           "big day --deep")


def best_of(call, times: int = 3) -> float:
    found = []
    for _ in range(times):
        began = time.perf_counter()
        call()
        found.append(time.perf_counter() - began)
    return min(found)


def tree_figures(tree: Path) -> None:
    """Print one tree's figures, a line each: `NAME: SECONDS`."""
    sys.path[:0] = [str(tree), str(ROOT / "bench")]
    from backfill import backfill
    from check_day import check_day
    from check_month import check_month
    from delta_session import delta_spark
    from load_day import load_day
    from make_days import make_days
    from tree_names import root_at, run_dates, table_path
    from bench_scale import BIG_DAY, write_big_day  # after the tree's modules: it puts this tree first on the path
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        spark = delta_spark("bench_checks", commits=30)
        make_days()
        began = time.perf_counter()
        backfill(spark, "2026-09-02", "2026-10-01", show=lambda line: None)
        print(f"september backfill: {time.perf_counter() - began:.2f}")
        print(f"check_month (records): {best_of(lambda: check_month(spark, '2026-09')):.3f}")
        spark.sql(f"OPTIMIZE delta.`{table_path()}`")
        print(f"check_month (rows): {best_of(lambda: check_month(spark, '2026-09')):.3f}")
        runs = run_dates("2026-09-02", "2026-10-01")
        print(f"30 check_day --deep: {best_of(lambda: [check_day(spark, run, deep=True) for run in runs]):.3f}")
        write_big_day(BIG_DAY, 1_000_000)
        load_day(spark, BIG_DAY + dt.timedelta(days=1))
        print(f"big day --deep: {best_of(lambda: check_day(spark, BIG_DAY + dt.timedelta(days=1), deep=True)):.3f}")


def side_by_side(against: str, rounds: int = 2) -> None:
    from side_by_side import other_tree
    print(f"== checks, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load {os.getloadavg()[0]:.2f}, "
          f"this tree against {against}", flush=True)
    found = {against: [], "this tree": []}
    with other_tree(ROOT, against) as before:
        for _ in range(rounds):
            for name, tree in ((against, before), ("this tree", ROOT)):
                done = subprocess.run([sys.executable, __file__, "--tree", str(tree)], capture_output=True,
                                      text=True, check=True)
                found[name].append(dict(re.findall(r"^(.+): ([0-9.]+)$", done.stdout, re.M)))
                print(f"  {name}: {found[name][-1]}", flush=True)
    for figure in FIGURES:
        old, new = (min(float(one[figure]) for one in found[name]) for name in (against, "this tree"))
        print(f"{figure}: {new:.2f} s against {old:.2f} s ({(new / old - 1) * 100:+.0f}%)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=AGAINST, help="the commit to compare with")
    parser.add_argument("--tree", type=Path, help="print this tree's figures only")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of the two trees, alternating")
    args = parser.parse_args(argv)
    if args.tree:
        tree_figures(args.tree)
    else:
        side_by_side(args.against, args.rounds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
