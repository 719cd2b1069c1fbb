"""September's backfill on a bucket of a local S3 server against the same on a folder, alternating, each a
cold process: a commit a run, then all 30 runs in one commit; then check_day.py of a loaded day on each.

    python bench/bench_s3.py            # two tries each way, about 12 minutes on 2 cores

The bucket is moto's S3 server on a loopback port in this process (tests/support/local_s3.py, as make run-s3
starts it), so these figures hold the toolkit's and S3A's own cost of a bucket (its requests, the
conditional put of each commit, listings in place of a folder's) and not a network's. Each try gets a
new folder or a new prefix below the bucket with September's files, made before the clock starts.
"""
import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEPTEMBER = ("2026-09-02", "2026-10-01")
WAYS = {"a commit a run": [], "one commit": ["--days-per-commit", "all"]}


def script(env: dict, root: str, *args) -> float:
    """Seconds of one cold process of a toolkit script on root; it must succeed."""
    began = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:], "--root", root], env=env, check=True,
                   capture_output=True, cwd=ROOT)
    return time.perf_counter() - began


def fresh_root(s3, folder: Path, where: str, name: str) -> tuple:
    """(env, root) of a new folder or a new prefix of the bucket holding September's files."""
    env, root = (s3.env(name), f"s3a://shop/{name}") if where == "bucket" else (s3.env("unused"), str(folder / name))
    env.pop("SHOP_ROOT")
    if where == "folder":
        (folder / name).mkdir()
    script(env, root, "make_days.py")
    return env, root


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=2, help="tries of each way on each (default 2)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from local_s3 import LocalS3
    best, roots, made = {}, {}, 0
    with LocalS3() as s3, tempfile.TemporaryDirectory() as folder:
        for way, extra in WAYS.items():
            for number in range(1, args.tries + 1):
                for where in ("folder", "bucket"):
                    made += 1
                    env, root = fresh_root(s3, Path(folder), where, f"{where}-{made}")
                    seconds = script(env, root, "backfill.py", *SEPTEMBER, *extra)
                    roots[where] = env, root
                    best[way, where] = min(seconds, best.get((way, where), seconds))
                    print(f"  {way}, {where}, try {number}: {seconds:.1f} s", flush=True)
        for where, (env, root) in roots.items():
            checks = [script(env, root, "check_day.py", "2026-09-16") for _ in range(3)]
            print(f"  check_day.py 2026-09-16 on the {where} (from the load's record): best of 3 {min(checks):.2f} s")
    for way in WAYS:
        ratio = best[way, "bucket"] / best[way, "folder"]
        print(f"September, {way}: bucket {best[way, 'bucket']:.1f} s, folder {best[way, 'folder']:.1f} s "
              f"({ratio:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
