"""Benchmark of issue 33 on a standalone cluster: the year of 10,000 orders a day (3.65 million) in one
commit, `backfill.py --days-per-commit all`, on one worker against two (one core and 1 GB each).

    python bench/bench_cluster.py      # about 10 minutes on 2 cores

The cluster is tests/support/standalone.py's, on 127.0.0.1 with its secret; the files are test_cluster_year's,
without the refused day. The ways alternate (1, 2, 1, 2 workers), each try a new cluster and an empty
table; a try is timed from the backfill's start to its end, its process's own start included. On a
machine of two cores the driver shares them with the two executors.
"""
import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "end_to_end")]

from standalone import StandaloneCluster  # noqa: E402
from test_cluster_year import YEAR_RUNS, write_year  # noqa: E402

TARGET = 1.5  # issue 33: two workers at least 1.5 times as fast as one


def one_try(folder: Path, workers: int) -> float:
    shutil.rmtree(folder / "year" / "lake", ignore_errors=True)
    daemons = folder / f"daemons-{workers}-{time.monotonic_ns()}"
    daemons.mkdir()
    with StandaloneCluster(daemons, workers=workers) as cluster:
        began = time.perf_counter()
        done = subprocess.run([sys.executable, str(ROOT / "backfill.py"), *YEAR_RUNS, "--days-per-commit", "all"],
                              cwd=folder / "year", env=cluster.driver_env(), capture_output=True, text=True)
        seconds = time.perf_counter() - began
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    print(f"  {workers} worker{'s' if workers > 1 else ''}: {seconds:.1f} s; {done.stdout.splitlines()[-1]}",
          flush=True)
    return seconds


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    loads = ", ".join(f"{load:.2f}" for load in os.getloadavg())
    print(f"== cluster: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, load average {loads}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        write_year(Path(folder) / "year", bad=False)
        found = {1: [], 2: []}
        for _ in range(2):
            for workers in found:
                found[workers].append(one_try(Path(folder), workers))
    one, two = min(found[1]), min(found[2])
    print(f"the year in one commit: one worker {one:.1f} s, two workers {two:.1f} s: {one / two:.2f}x "
          f"(target {TARGET}x: {'met' if one / two >= TARGET else 'not met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
