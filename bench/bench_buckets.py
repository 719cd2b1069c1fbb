"""September's backfill on a bucket of a local S3 server and of a local GCS server against the same on a
folder, alternating, each a cold process: a commit a run, then all 30 runs in one commit; then check_day.py
of a loaded day on each.

    python bench/bench_buckets.py                       # two tries each way on each, about 20 minutes on 2 cores
    python bench/bench_buckets.py --way "a commit a run"  # that way only
    python bench/bench_buckets.py --latency 30          # ten runs, each request 30 ms late (the clouds' order)

The buckets are moto's S3 server and fake-gcs-server on loopback ports, started by this process
(tests/support/local_s3.py and local_gcs.py, as make run-s3 and make run-gcs start them), so these figures
hold the toolkit's and each connector's own cost of a bucket (its requests, the create-if-absent of each
commit, listings in place of a folder's) and not a network's. Each try gets a new folder or a new prefix
below a bucket with September's files, made before the clock starts. With --latency MS a proxy in front of
each server holds every request MS milliseconds before passing it on: ten runs, a commit a run.
"""
import argparse
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEPTEMBER = ("2026-09-02", "2026-10-01")
WAYS = {"a commit a run": [], "one commit": ["--days-per-commit", "all"]}
ENDPOINTS = {"S3": "AWS_ENDPOINT_URL", "GCS": "STORAGE_EMULATOR_HOST"}


def script(env: dict, root: str, *args) -> float:
    """Seconds of one cold process of a toolkit script on root; it must succeed."""
    began = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:], "--root", root], env=env, check=True,
                   capture_output=True, cwd=ROOT)
    return time.perf_counter() - began


def fresh_root(servers: dict, folder: Path, where: str, name: str) -> tuple:
    """(env, root) of a new folder or a new prefix of a bucket holding September's files."""
    server = servers.get(where, servers["S3"])
    env = server.env(name)
    root = env.pop("SHOP_ROOT") if where in servers else str(folder / name)
    if where == "folder":
        (folder / name).mkdir()
    script(env, root, "make_days.py")
    return env, root


def late(servers: dict, folder: Path, milliseconds: int, tries: int) -> None:
    """Ten runs, a commit a run, on the folder and through a proxy before each server that holds each request,
    alternating."""
    from relay import Forward, Proxy

    class Late(Forward):
        def forward(self):
            time.sleep(milliseconds / 1000)
            super().forward()
        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = forward

    best = {}
    with ExitStack() as stack:
        proxies = {where: stack.enter_context(Proxy(server.url)) for where, server in servers.items()}
        for proxy in proxies.values():
            proxy.RequestHandlerClass = Late
        for number in range(1, tries + 1):
            for where in ("folder", *servers):
                env, root = fresh_root(servers, folder, where, f"late-{where}-{number}")
                if where in servers:
                    env[ENDPOINTS[where]] = proxies[where].url
                seconds = script(env, root, "backfill.py", "2026-09-02", "2026-09-11")
                best[where] = min(seconds, best.get(where, seconds))
                print(f"  ten runs, {where}, try {number}: {seconds:.1f} s", flush=True)
    for where in servers:
        print(f"ten runs, each request {milliseconds} ms late: {where} {best[where]:.1f} s, folder "
              f"{best['folder']:.1f} s ({best[where] / best['folder']:.2f}x)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=2, help="tries of each way on each (default 2)")
    parser.add_argument("--way", choices=WAYS, action="append", help="only this way (may repeat)")
    parser.add_argument("--latency", type=int, metavar="MS", help="only the ten runs, each request MS ms late")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support")]
    from local_gcs import LocalGcs
    from local_s3 import LocalS3
    with LocalS3() as s3, LocalGcs() as gcs, tempfile.TemporaryDirectory() as folder:
        servers = {"S3": s3, "GCS": gcs}
        if args.latency is not None:
            late(servers, Path(folder), args.latency, args.tries)
            return 0
        ways, best, roots, made = args.way or list(WAYS), {}, {}, 0
        for way in ways:
            for number in range(1, args.tries + 1):
                for where in ("folder", *servers):
                    made += 1
                    env, root = fresh_root(servers, Path(folder), where, f"{where.lower()}-{made}")
                    seconds = script(env, root, "backfill.py", *SEPTEMBER, *WAYS[way])
                    roots[where] = env, root
                    best[way, where] = min(seconds, best.get((way, where), seconds))
                    print(f"  {way}, {where}, try {number}: {seconds:.1f} s", flush=True)
        for where, (env, root) in roots.items():
            checks = [script(env, root, "check_day.py", "2026-09-16") for _ in range(3)]
            print(f"  check_day.py 2026-09-16 on the {where} (from the load's record): best of 3 {min(checks):.2f} s")
    for way in ways:
        print(f"September, {way}: " + ", ".join(
            f"{where} {best[way, where]:.1f} s ({best[way, where] / best[way, 'folder']:.2f}x)" for where in servers)
              + f", folder {best[way, 'folder']:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
