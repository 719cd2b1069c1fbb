"""Where a bucket's time goes: the S3 requests of a backfill on a bucket, by who made them (the toolkit's
Python through pyarrow, or the JVM's S3A) and what for, counted by a proxy in front of the S3 server.

    python bench/bench_s3_requests.py            # 10 runs, a commit a run, about a minute; then the checks
    python bench/bench_s3_requests.py --runs 30

The server is moto's on a loopback port (tests/support/local_s3.py) and the proxy is tests/support/relay.py's, which notes
each request; a request's User-Agent says whose it is. The proxy adds its own wait to each request, so the
backfill's time here is not the bucket's (bench_s3.py measures that): the counts are the figure.
"""
import argparse
import collections
import re
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "end_to_end")]
COMMIT = re.compile(r"\d{20}\.json")


def what(method: str, target: str) -> str:
    """A request as `METHOD kind`: a listing, a commit file, a day file, a data file, ..."""
    path, _, query = target.partition("?")
    name = path.rsplit("/", 1)[-1]
    if "list-type" in query or "prefix=" in query:
        kind = "listing of _delta_log" if "_delta_log" in target else "listing of another prefix"
    elif "_delta_log" in path:
        kind = ("commit file" if COMMIT.fullmatch(name) else "checkpoint" if ".checkpoint." in name
                else "a temporary file of the log" if name.startswith(".") else f"log: {re.sub(r'[0-9]+', 'N', name)}")
    elif path.endswith(".csv"):
        kind = "day file"
    elif path.endswith(".parquet"):
        kind = "data file"
    else:
        kind = "a prefix (a folder's look)"
    return f"{method} {kind}"


def noting(note):
    """The proxy's request handler that calls note(whose, what) for each request before passing it on: whose
    from its User-Agent (Hadoop's S3A in the JVM, or the toolkit's Python through pyarrow)."""
    from relay import Forward

    class Noted(Forward):
        def forward(self):
            agent = self.headers.get("User-Agent", "").lower()
            note("JVM (S3A)" if "java" in agent or "hadoop" in agent else "Python (pyarrow)",
                 what(self.command, urllib.parse.unquote(self.path)))
            super().forward()
        do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = forward
    return Noted


def counted(runs: int) -> tuple:
    """({(who, what): requests}, the backfill's closing line, {check: {(who, what): requests}}) of a
    backfill of runs runs on a new prefix, then of check_day.py of its last day (from the load's record)
    and check_month.py of September, each a process of its own."""
    from local_s3 import LocalS3
    from relay import Proxy

    with LocalS3() as s3, tempfile.TemporaryDirectory() as folder:
        env = s3.env(f"requests-{time.time_ns()}")
        subprocess.run([sys.executable, str(ROOT / "make_days.py")], cwd=folder, env=env, check=True, capture_output=True)
        with Proxy(s3.url) as proxy:
            proxy.noted = []
            proxy.RequestHandlerClass = noting(lambda who, kind: proxy.noted.append((who, kind)))
            last = f"2026-09-{1 + runs:02d}"
            done = subprocess.run([sys.executable, str(ROOT / "backfill.py"), "2026-09-02", last], cwd=folder,
                                  env={**env, "AWS_ENDPOINT_URL": proxy.url}, capture_output=True, text=True, check=True)
            noted, checks = list(proxy.noted), {}
            for check in (["check_day.py", last], ["check_month.py", "2026-09", "--today", last]):
                proxy.noted = []
                subprocess.run([sys.executable, str(ROOT / check[0]), *check[1:]], cwd=folder,
                               env={**env, "AWS_ENDPOINT_URL": proxy.url}, capture_output=True)
                checks[" ".join(check)] = collections.Counter(proxy.noted)
    return collections.Counter(noted), done.stdout.splitlines()[-1], checks


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="runs of the backfill, a commit each (default 10)")
    args = parser.parse_args(argv)
    tally, closing, checks = counted(args.runs)
    print(f"backfill.py of {args.runs} runs on a bucket: {closing}")
    print(f"{sum(tally.values())} requests, {sum(tally.values()) / args.runs:.0f} a run")
    shown(tally, args.runs)
    for check, asked in checks.items():
        print(f"{check}: {sum(asked.values())} requests")
        shown(asked, 1)
    return 0


def shown(tally, runs: int) -> None:
    for who in ("Python (pyarrow)", "JVM (S3A)"):
        mine = {kind: count for (whose, kind), count in tally.items() if whose == who}
        print(f"  {who}: {sum(mine.values())}")
        for kind, count in sorted(mine.items(), key=lambda item: -item[1]):
            print(f"    {count:6d}  {count / runs:6.1f} a run  {kind}")


if __name__ == "__main__":
    sys.exit(main())
