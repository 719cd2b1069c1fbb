"""Which step of a run makes which request to a bucket: one run of a backfill (after two that warm the
session), in this process, each toolkit function it calls and each request in the order they happen.

    python bench/bench_s3_steps.py              # the third run; --depth 6 for more of the calls
    python bench/bench_s3_steps.py --runs 9     # the ninth: Delta's replay of the log grows until each tenth

bench_s3_requests.py counts a backfill's requests by kind; this says where in the code each comes from.
The server is moto's (tests/support/local_s3.py) behind tests/support/relay.py's proxy, which notes each request
with whose it is (the User-Agent: the toolkit's Python through pyarrow, or the JVM's S3A); the calls are
the toolkit's own Python functions (sys.setprofile), so a JVM request shows under the call that asked Spark.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "end_to_end")]
QUIET = ("dates.", "object_path.", "stores.", "project_paths.", "location.", "line_rules.", "row_values.",
         "table_schema.", "expression_mode.")


class Steps:
    """The events of a run: ('call', depth, module.function) and ('request', who, what), in order."""

    def __init__(self, depth: int):
        self.events, self.lock, self.depth, self.at = [], threading.Lock(), depth, 0

    def note(self, *event):
        with self.lock:
            self.events.append(event)

    def profile(self, frame, event, arg):
        code = frame.f_code
        if not code.co_filename.startswith(str(ROOT)) or "/.venv/" in code.co_filename or "/tests/" in code.co_filename:
            return
        if event == "call":
            self.at += 1
            name = f"{Path(code.co_filename).stem}.{code.co_name}"
            if self.at <= self.depth and not code.co_name.startswith("<") and not name.startswith(QUIET):
                self.note("call", self.at, name)
        elif event == "return":
            self.at -= 1


def one_run(runs: int, depth: int) -> Steps:
    from bench_s3_requests import noting
    from local_s3 import LocalS3
    from relay import Proxy
    steps = Steps(depth)

    with LocalS3() as s3, tempfile.TemporaryDirectory() as folder:
        env = s3.env(f"steps-{time.time_ns()}")
        subprocess.run([sys.executable, str(ROOT / "make_days.py")], cwd=folder, env=env, check=True, capture_output=True)
        with Proxy(s3.url) as proxy:
            proxy.RequestHandlerClass = noting(lambda who, kind: steps.note("request", who, kind))
            os.environ.update({**env, "AWS_ENDPOINT_URL": proxy.url})
            os.chdir(folder)
            from backfill import run_one
            from delta_session import delta_spark
            spark = delta_spark("bench_s3_steps", commits=runs, days=[])
            dates = [f"2026-09-{day:02d}" for day in range(2, 2 + runs)]
            for run_date in dates[:-1]:
                run_one(spark, run_date)
            steps.events.clear()
            sys.setprofile(steps.profile)
            print(run_one(spark, dates[-1])[1])
            sys.setprofile(None)
            time.sleep(1)  # a request still on its way through the proxy
    return steps


def shown(steps: Steps) -> None:
    """The events, a repeated request once with its count."""
    lines = [f"{'  ' * depth}{name}" if kind == "call" else f"{' ' * 14}{depth:16s} {name}"
             for kind, depth, name in steps.events]
    for line, count in squeezed(lines):
        print(line + (f"  x{count}" if count > 1 else ""))
    asked = [event for event in steps.events if event[0] == "request"]
    print(f"{len(asked)} requests: {sum(who.startswith('Python') for _, who, _ in asked)} the toolkit's "
          f"Python, {sum(who.startswith('JVM') for _, who, _ in asked)} the JVM's")


def squeezed(lines):
    last, count = None, 0
    for line in lines:
        if line == last:
            count += 1
            continue
        if last is not None:
            yield last, count
        last, count = line, 1
    if last is not None:
        yield last, count


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="the run shown is the last of this many (default 3)")
    parser.add_argument("--depth", type=int, default=4, help="calls shown down to this depth (default 4)")
    args = parser.parse_args(argv)
    shown(one_run(max(args.runs, 1), args.depth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
