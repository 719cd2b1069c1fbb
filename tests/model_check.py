"""Nothing lost under any sequence: seeded random histories of every operation, run against the real
toolkit and against a model in plain Python that knows what each must do (tests/model/).

    python tests/model_check.py --seed 11 --seed 12      # those histories
    python tests/model_check.py --soak 600               # new seeds for 10 minutes, then the figures
    python tests/model_check.py --history '{"seed": 11, "first": ..., "ops": [...]}'   # a printed replay
    python tests/model_check.py --suite --first     # the suite's seeds and written histories (model/fixed.py)

A history is a few days of September 2026: the till writes (now and then a big file, which takes the
Spark path), appends to, corrects, deletes, spoils and puts back files; load_day, check_day, check_month,
backfill (its options), restore_day, partition_table, history and upkeep run as functions in one shared
session or as processes; another Delta client inserts, deletes, updates and replaces rows, and may turn
deletion vectors on; two writers overlap; a writer is SIGKILLed at a random moment, and where the kill
fell (before a commit, inside a write, after a commit) is counted. After each operation the table, its
history, every day's state and every line printed are compared with the model; a divergence is shrunk
to the simplest history that shows it and printed with the commands that replay it. Exit 1 on a
divergence.
"""
import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model.fixed import HISTORIES, SEEDS  # noqa: E402
from model.histories import generate  # noqa: E402
from model.runner import Figures, run_history  # noqa: E402
from model.shrink import label, replay_report, shrink  # noqa: E402

SHRINK_SECONDS = 300  # at most this long to shorten a divergent history


def check_history(spark, history: dict, folder: Path, shrink_seconds: float = SHRINK_SECONDS) -> tuple:
    """(Figures, '' or the report of the shortest divergent history) for one history run below folder."""
    root = Path(tempfile.mkdtemp(dir=folder)) / "root"
    run = run_history(spark, history, root)
    if not run.divergence:
        shutil.rmtree(root.parent, ignore_errors=True)
        return run.figures, ""
    shortest, last, tries = shrink(spark, history, run, shrink_seconds, folder)
    report = replay_report(shortest, last if last.divergence else run)
    return run.figures, f"{report}\n({tries} shorter histories tried; the first run's folder: {root})"


def figures_line(figures: Figures) -> str:
    minutes = max(figures.seconds / 60, 1e-9)
    return (f"{figures.histories} histories, {figures.operations} operations, {figures.kills} kills "
            f"({figures.kills_before} before a commit, {figures.kills_inside} inside a write, "
            f"{figures.kills_after} after a commit), {figures.pairs} overlapping writer pairs, "
            f"{figures.foreign} writes of another client, {figures.big} big files, {figures.refused} refused files, "
            f"{figures.divergences} divergences; {figures.operations / minutes:.1f} operations per minute "
            f"({figures.seconds:.0f} s)")


def soak(spark, seconds: float, folder: Path) -> int:
    """New seeds until seconds have passed; a line per history, the figures at the end."""
    total, deadline = Figures(), time.monotonic() + seconds
    seeds = random.Random(time.time_ns())
    while time.monotonic() < deadline:
        seed = seeds.randrange(10 ** 9)
        figures, report = check_history(spark, generate(seed), folder)
        total.add(figures)
        print(f"seed {seed}: {figures.operations} operations, {figures.kills} kills, {figures.pairs} pairs, "
              f"{'DIVERGED' if report else 'ok'} ({figures.seconds:.1f} s)", flush=True)
        if report:
            print(report, flush=True)
    print(figures_line(total))
    return 1 if total.divergences else 0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, action="append", default=[], help="run this seed's history")
    parser.add_argument("--soak", type=float, metavar="SECONDS", help="run new seeds for SECONDS")
    parser.add_argument("--history", help="replay a printed history (its JSON)")
    parser.add_argument("--fixed", action="append", default=[], choices=HISTORIES,
                        help="run this written history of model/fixed.py (may repeat)")
    parser.add_argument("--suite", action="store_true", help="the suite's seeds and all its written histories")
    parser.add_argument("--first", action="store_true", help="stop at the first history that diverges")
    parser.add_argument("--shrink", type=float, default=SHRINK_SECONDS, metavar="SECONDS",
                        help=f"shorten a divergent history for at most SECONDS (default {SHRINK_SECONDS}; 0: not at all)")
    args = parser.parse_args(argv)
    if not (args.seed or args.soak or args.history or args.fixed or args.suite):
        parser.error("give --seed, --soak, --history, --fixed or --suite")
    return args


def chosen(args) -> list:
    """The histories the arguments name: written ones first (named), then seeds'."""
    names = list(HISTORIES) if args.suite else args.fixed
    seeds = args.seed + (SEEDS if args.suite else [])
    given = [json.loads(args.history)] if args.history else []
    return given + [{"name": name, **HISTORIES[name]} for name in names] + [generate(seed) for seed in seeds]


def main(argv=None) -> int:
    args = parse_args(argv)
    from delta_session import delta_spark
    from shoptoolkit.jvm.spark_jvm import LASTING_RUNS
    spark = delta_spark("model_check", commits=LASTING_RUNS)
    folder = Path(tempfile.mkdtemp(prefix="model_check_"))
    if args.soak:
        return soak(spark, args.soak, folder)
    total = Figures()
    for history in chosen(args):
        figures, report = check_history(spark, history, folder, args.shrink)
        total.add(figures)
        print(report or f"{label(history)}: ok, {figures.operations} operations ({figures.seconds:.1f} s)", flush=True)
        if report and args.first:
            break
    print(figures_line(total))
    return 1 if total.divergences else 0


if __name__ == "__main__":
    raise SystemExit(main())
