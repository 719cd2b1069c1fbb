"""Nothing lost under any sequence: seeded random histories of every operation, run against the real
toolkit and against a model in plain Python that knows what each must do (tests/model/).

    python tests/model_check.py --seed 11 --seed 12      # those histories
    python tests/model_check.py --soak 600               # new seeds for 10 minutes, then the figures
    python tests/model_check.py --history '{"seed": 11, "first": ..., "ops": [...]}'   # a printed replay
    python tests/model_check.py --suite --first     # the suite's seeds and written histories (model/fixed.py)
    python tests/model_check.py --soak 600 --local-s3    # on a bucket of a local S3 server (make soak-s3)
    python tests/model_check.py --seed 7275 --local-gcs  # on a bucket of a local GCS server (fake-gcs-server)
    python tests/model_check.py --seed 7275 --local-s3 --local-gcs   # on each in turn, one session for both
    python tests/model_check.py --seed 11 --on s3a://BUCKET/PREFIX    # on your bucket (AWS_ settings as for the scripts)

A history is a few days of September 2026: the till writes (now and then a big file, which takes the
Spark path), appends to, corrects, deletes, spoils and puts back files; load_day, check_day, check_month,
backfill (its options), restore_day, partition_table, history and upkeep run as functions in one shared
session or as processes; another Delta client inserts, deletes, updates and replaces rows, and may turn
deletion vectors on; two writers overlap; a writer is SIGKILLed at a random moment, and where the kill
fell (before a commit, inside a write, after a commit) is counted. After each operation the table, its
history, every day's state and every line printed are compared with the model; a divergence is shrunk
to the simplest history that shows it and printed with the commands that replay it. Exit 1 on a
divergence. On a bucket the histories' roots are prefixes of it and everything else is the same: the
till's files, the kills, the held writers (their hold folders stay local) and the reading process.
"""
import argparse
import json
import os
import random
import sys
import tempfile
import time
from contextlib import ExitStack, contextmanager
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))  # the helpers: holding.py, local_s3.py
sys.path.insert(0, str(Path(__file__).resolve().parent))

from model.fixed import HISTORIES, SEEDS  # noqa: E402
from model.histories import generate  # noqa: E402
from model.processes import fresh_root  # noqa: E402
from model.runner import Figures, run_history  # noqa: E402
from model.shrink import label, replay_report, shrink  # noqa: E402

SHRINK_SECONDS = 300  # at most this long to shorten a divergent history


def check_history(spark, history: dict, folder: Path, shrink_seconds: float = SHRINK_SECONDS, on: str = None) -> tuple:
    """(Figures, '' or the report of the shortest divergent history) for one history run below folder,
    or below on (an object store's URI: the bucket's prefix for its root, folder for its local scratch)."""
    from shoptoolkit.storage.location import remove_tree
    root = fresh_root(folder, on)
    run = run_history(spark, history, root)
    if not run.divergence:
        remove_tree(root.parent, ignore_errors=True)
        return run.figures, ""
    shortest, last, tries = shrink(spark, history, run, shrink_seconds, folder, on)
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


def soak(spark, seconds: float, folder: Path, on: str = None) -> int:
    """New seeds until seconds have passed; a line per history, the figures at the end."""
    total, deadline = Figures(), time.monotonic() + seconds
    seeds = random.Random(time.time_ns())
    while time.monotonic() < deadline:
        seed = seeds.randrange(10 ** 9)
        figures, report = check_history(spark, generate(seed), folder, on=on)
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
    parser.add_argument("--on", metavar="URI", help="run the histories below an object store's prefix (s3a://BUCKET/"
                        "PREFIX, the AWS_ settings as for the scripts) instead of local folders")
    parser.add_argument("--local-s3", action="store_true",
                        help="run them on a local S3 server (tests/support/local_s3.py's), started for the run and stopped after")
    parser.add_argument("--local-gcs", action="store_true",
                        help="run them on a local GCS server (tests/support/local_gcs.py's), started and stopped so; "
                        "with --local-s3 too, on each in turn, in one session")
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
    from local_gcs import LocalGcs
    from local_s3 import LocalS3
    servers = [(name, server) for name, wanted, server in (("S3", args.local_s3, LocalS3), ("GCS", args.local_gcs, LocalGcs))
               if wanted]
    with ExitStack() as stack:  # each server stopped on the way out, whatever the run's end
        stores = []
        for name, server in servers:
            started = stack.enter_context(server())
            env = started.env(f"model-{time.time_ns()}")
            os.environ.update({key: value for key, value in env.items()  # where its clients find it
                               if key.startswith("AWS_") or key == "STORAGE_EMULATOR_HOST"})
            stores.append((f"a local {name} server on {started.url}; the histories below {env['SHOP_ROOT']}",
                           env["SHOP_ROOT"]))
        return run(args, stores or [("", args.on)])


def run(args, stores: list) -> int:
    """The histories the arguments name, or the soak, in one session, below each of stores' roots in turn
    ([(the line that names it, its root)]; a root None: local folders); exit 1 on a divergence."""
    from delta_session import set_root
    from suite_jit import suite_session
    folder = Path(tempfile.mkdtemp(prefix="model_check_"))
    roots = [root for _, root in stores if root]
    if roots:
        set_root(roots[0])  # before the session: a bucket's root brings its store's connector into it
    with connectors_of(roots[1:]):
        spark = suite_session("model_check")  # a lasting session, its driver's JVM the suite's (support/suite_jit.py)
    status = 0
    for line, root in stores:
        if line:
            print(line, flush=True)
        status = max(status, soak(spark, args.soak, folder, root) if args.soak else histories(spark, args, folder, root))
    return status


@contextmanager
def connectors_of(roots: list):
    """The connectors of these roots' stores too, in a session started inside: one session for histories
    on two stores (a session brings only its root's store's connector)."""
    from shoptoolkit.engine import spark_jvm
    from shoptoolkit.storage.parts import store_parts
    own = spark_jvm.log_store

    def with_theirs() -> tuple:
        jars, settings = own()
        for root in roots:
            more_jars, more = store_parts(root).spark()
            jars, settings = jars + [jar for jar in more_jars if jar not in jars], {**settings, **more}
        return jars, settings
    with mock.patch.object(spark_jvm, "log_store", with_theirs):
        yield


def histories(spark, args, folder: Path, on) -> int:
    """The histories the arguments name, below on (None: local folders): a line each, then the figures."""
    total = Figures()
    for history in chosen(args):
        figures, report = check_history(spark, history, folder, args.shrink, on)
        total.add(figures)
        print(report or f"{label(history)}: ok, {figures.operations} operations ({figures.seconds:.1f} s)", flush=True)
        if report and args.first:
            break
    print(figures_line(total), flush=True)
    return 1 if total.divergences else 0


if __name__ == "__main__":
    raise SystemExit(main())
