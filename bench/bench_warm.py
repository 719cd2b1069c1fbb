"""Benchmark: a by-hand `python load_day.py D` through a warm Spark Connect server against the same
command starting its own Spark, side by side in one run.

    python bench/bench_warm.py              # 3 reruns each way of one day in a 30-day September table
    python bench/bench_warm.py --reruns 5

Works in a temporary folder: writes September's files and backfills it (in a process of its own),
starts `spark_server.py`, times each rerun as a whole process (wall clock, Python start included),
stops the server, then times the same reruns with no server. Prints each figure and the ratio.
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

from shoptoolkit.storage.project_paths import root_at

RUN_DATE = "2026-09-16"


def script(*args, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:]], capture_output=True, text=True,
                          env=env, check=True)


def timed_reruns(count: int, env) -> list:
    seconds = []
    for _ in range(count):
        began = time.perf_counter()
        done = script("load_day.py", RUN_DATE, env=env)
        seconds.append(time.perf_counter() - began)
        assert done.stdout.startswith(f"run {RUN_DATE} loaded "), done.stdout
    return seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reruns", type=int, default=3, help="reruns each way (default 3)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder, root_at(folder):  # the scripts' processes work below it (SHOP_ROOT)
        own = {key: value for key, value in os.environ.items() if key not in ("SPARK_REMOTE", "SPARK_MASTER")}
        script("make_days.py", env=own)
        script("backfill.py", "2026-09-02", "2026-10-01", env=own)
        began = time.perf_counter()
        export = script("spark_server.py", "start", env=own).stdout.strip()
        started = time.perf_counter() - began
        try:
            warm = timed_reruns(args.reruns, {**own, "SPARK_REMOTE": export.split("=", 1)[1].strip("'")})
        finally:
            script("spark_server.py", "stop", env=own)
        cold = timed_reruns(args.reruns, own)
    print(f"spark_server.py start (up and warmed): {started:.1f} s")
    print(f"python load_day.py {RUN_DATE} through the warm server: "
          f"{', '.join(f'{s:.1f}' for s in warm)} s (median {statistics.median(warm):.1f} s)")
    print(f"python load_day.py {RUN_DATE} starting its own Spark: "
          f"{', '.join(f'{s:.1f}' for s in cold)} s (median {statistics.median(cold):.1f} s)")
    print(f"ratio: the warm rerun is {statistics.median(cold) / statistics.median(warm):.1f}x faster")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
