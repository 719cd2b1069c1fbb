"""September's backfill on a bucket of a local S3 server against the same on a folder, alternating, each a
cold process: a commit a run, then all 30 runs in one commit; then check_day.py of a loaded day on each.

    python bench/bench_s3.py                    # two tries each way, about 12 minutes on 2 cores
    python bench/bench_s3.py --latency 30       # ten runs, each request to the bucket 30 ms late (AWS's order)

The bucket is moto's S3 server on a loopback port in this process (tests/support/local_s3.py, as make run-s3
starts it), so these figures hold the toolkit's and S3A's own cost of a bucket (its requests, the
conditional put of each commit, listings in place of a folder's) and not a network's. Each try gets a
new folder or a new prefix below the bucket with September's files, made before the clock starts.
With --latency MS a proxy in front of the server holds every request MS milliseconds before passing it
on (AWS S3's own first-byte latency is of that order): ten runs, a commit a run, against the folder.
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


def late(s3, folder: Path, milliseconds: int, tries: int) -> None:
    """Ten runs, a commit a run, on the folder and through a proxy that holds each request, alternating."""
    from relay import Forward, Proxy

    class Late(Forward):
        def forward(self):
            time.sleep(milliseconds / 1000)
            super().forward()
        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward

    best = {}
    with Proxy(s3.url) as proxy:
        proxy.RequestHandlerClass = Late
        for number in range(1, tries + 1):
            for where in ("folder", "bucket"):
                env, root = fresh_root(s3, folder, where, f"late-{where}-{number}")
                env = {**env, "AWS_ENDPOINT_URL": proxy.url}
                seconds = script(env, root, "backfill.py", "2026-09-02", "2026-09-11")
                best[where] = min(seconds, best.get(where, seconds))
                print(f"  ten runs, {where}, try {number}: {seconds:.1f} s", flush=True)
    print(f"ten runs, each request {milliseconds} ms late: bucket {best['bucket']:.1f} s, folder "
          f"{best['folder']:.1f} s ({best['bucket'] / best['folder']:.2f}x)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=2, help="tries of each way on each (default 2)")
    parser.add_argument("--latency", type=int, metavar="MS", help="only the ten runs, each request MS ms late")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "end_to_end")]
    from local_s3 import LocalS3
    if args.latency is not None:
        with LocalS3() as s3, tempfile.TemporaryDirectory() as folder:
            late(s3, Path(folder), args.latency, args.tries)
        return 0
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
