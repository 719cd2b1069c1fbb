"""Cold one-shot scripts, each a process of its own, in this tree against a checkout of --against, alternating:
the JIT a session gets (docs/session.md) must not make a small day's load or a month's backfill slower.

    python bench/bench_jit.py                  # about 8 minutes on 2 cores
    python bench/bench_jit.py --against HEAD~3 --rounds 3

In a temporary folder with September's files: `python backfill.py 2026-09-02 2026-10-01` (30 runs: the
full JIT in both trees) twice a tree; then, on its table, `python load_day.py 2026-09-16` (a small day:
C1 only in both trees) ROUNDS times a way, and the same script with its session made as a lasting one's
(Java's full JIT: what a wrong guess costs a one-shot script). Timed: each process's wall time, Spark's
start included.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_engine import top_line  # noqa: E402
from side_by_side import other_tree  # noqa: E402

BEFORE = "089380f"  # the tree before sessions that last got the full JIT whatever their first call said
RUN = "2026-09-16"
# load_day.py's main with its session made as one whose caller gives no count (a lasting session's JIT).
LASTING_LOAD = ("import sys, delta_session, load_day\n"
                "load_day.delta_spark = lambda app, **told: delta_session.delta_spark(app)\n"
                f"raise SystemExit(load_day.main([{RUN!r}]))")


def timed(command: list, folder: Path, tree: Path) -> float:
    began = time.perf_counter()
    subprocess.run(command, cwd=folder, check=True, capture_output=True, text=True,
                   env={**os.environ, "PYTHONPATH": str(tree)})
    return time.perf_counter() - began


def ways(before: Path) -> dict:
    """The load_day ways: (the command, the tree on its PYTHONPATH)."""
    return {"before": ([sys.executable, str(before / "load_day.py"), RUN], before),
            "this tree": ([sys.executable, str(ROOT / "load_day.py"), RUN], ROOT),
            "this tree, full JIT": ([sys.executable, "-c", LASTING_LOAD], ROOT)}


def alternating(commands: dict, folder: Path, rounds: int) -> dict:
    found = {name: [] for name in commands}
    for number in range(1, rounds + 1):
        for name, (command, tree) in commands.items():
            found[name].append(timed(command, folder, tree))
            print(f"  {name}, try {number}: {found[name][-1]:.1f} s", flush=True)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", default=BEFORE, help=f"the other tree (default {BEFORE})")
    parser.add_argument("--rounds", type=int, default=5, help="load_day.py's tries a way (default 5)")
    args = parser.parse_args(argv)
    print(f"== jit: {top_line()}", flush=True)
    with other_tree(ROOT, args.against) as before, tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, str(ROOT / "make_days.py")], cwd=folder, check=True, capture_output=True)
        print("python backfill.py 2026-09-02 2026-10-01, cold, 2 tries a tree:", flush=True)
        backfills = alternating({name: ([sys.executable, str(tree / "backfill.py"), "2026-09-02", "2026-10-01"], tree)
                                 for name, tree in (("before", before), ("this tree", ROOT))}, Path(folder), 2)
        print(f"python load_day.py {RUN}, cold, {args.rounds} tries a way:", flush=True)
        loads = alternating(ways(before), Path(folder), args.rounds)
    old, new, full = (statistics.median(loads[name]) for name in ("before", "this tree", "this tree, full JIT"))
    print(f"load_day.py of a small day, median: {new:.2f} s against {old:.2f} s at {args.against}: "
          f"{(new / old - 1) * 100:+.1f}% (at most +5%: {'met' if new <= 1.05 * old else 'not met'}); "
          f"with the full JIT {full:.2f} s ({(full / new - 1) * 100:+.1f}%)")
    old, new = min(backfills["before"]), min(backfills["this tree"])
    print(f"backfill of 30 runs, best: {new:.1f} s against {old:.1f} s at {args.against}: "
          f"{(new / old - 1) * 100:+.1f}% (at most +5%: {'met' if new <= 1.05 * old else 'not met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
