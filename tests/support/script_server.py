"""Scripts run one after another in one process of their own, with its own Spark: what a test that reads
only a script's exit code and lines needs of a process, without a JVM's start for each script.

    with ScriptServer(env) as served:                      # the process, stopped by its pid on the way out
        code, lines, err = served.run(["check_month.py", "2026-09"], cwd=folder, root="s3a://shop/x")

Each request runs the script's main(argv) as `python script.py ARGS` does (its __main__ block only calls
main and exits with its code), in the request's folder and SHOP_ROOT; everything the process writes to
its stdout and stderr meanwhile is the answer's, as a process's would be. The JVM's own output goes to
logs/spark.log in both (delta_session sends it there when the session starts). The session is made at
the start, a lasting one, and every script finds it, as in a notebook; the environment given at the
start (the S3 server's address) holds for all of them.
"""
import json
import os
import runpy
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ScriptServer:
    def __init__(self, env: dict):
        self.env, self.process = env, None

    def __enter__(self):
        self.log = tempfile.TemporaryFile("w+")
        self.process = subprocess.Popen([sys.executable, __file__], cwd=ROOT, env=self.env, text=True,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log)
        return self

    def __exit__(self, *exc):
        self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def run(self, argv: list, cwd, root: str) -> tuple:
        """(exit code, stdout lines, stderr) of argv[0] run with argv[1:] in cwd below root."""
        self.process.stdin.write(json.dumps({"argv": argv, "cwd": str(cwd), "root": root}) + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            self.log.seek(0)
            raise AssertionError(f"the script server ended: {self.log.read()[-2000:]}")
        found = json.loads(answer)
        return found["code"], found["out"].splitlines(), found["err"]


def captured(work) -> tuple:
    """(work's result, what fds 1 and 2 received meanwhile)."""
    files = [tempfile.TemporaryFile("w+b") for _ in (1, 2)]
    saved = [os.dup(fd) for fd in (1, 2)]
    sys.stdout.flush(), sys.stderr.flush()
    for fd, file in zip((1, 2), files):
        os.dup2(file.fileno(), fd)
    try:
        result = work()
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        for fd, kept in zip((1, 2), saved):
            os.dup2(kept, fd)
            os.close(kept)
    texts = []
    for file in files:
        file.seek(0)
        texts.append(file.read().decode())
    return result, *texts


def run_script(argv: list) -> int:
    try:
        return runpy.run_path(str(ROOT / argv[0]))["main"](argv[1:])
    except SystemExit as stop:  # argparse's usage errors
        return stop.code if isinstance(stop.code, int) else 1


def serve(answers) -> None:
    """The session first, a lasting one (the suite's JIT: suite_jit.py) below the environment's SHOP_ROOT; then
    each request."""
    sys.path.insert(0, str(ROOT))
    from suite_jit import suite_session
    captured(lambda: suite_session("script_server"))
    for line in sys.stdin:
        request = json.loads(line)
        os.chdir(request["cwd"])
        os.environ["SHOP_ROOT"] = request["root"]
        for name in ("SHOP_ON_NEW_COLUMN", "SHOP_COLUMN_TYPES"):  # set by a script's --on-new-column: its run's only
            os.environ.pop(name, None)
        code, out, err = captured(lambda: run_script(request["argv"]))
        answers.write(json.dumps({"code": code, "out": out, "err": err}) + "\n")
        answers.flush()


if __name__ == "__main__":
    answers = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # between requests, anything written to stdout goes to the log, not among the answers
    serve(answers)
