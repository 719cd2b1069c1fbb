"""The operations a history runs as processes, each as a user would: a script with --root, a script
SIGKILLed (its whole process group, JVM included) at a moment of its run, two writers whose commits
are forced to overlap by tests/support/holding.py's hold.
"""
import atexit
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

from conftest import ROOT, group_members
from holding import release

HELD_WRITE = ROOT / "tests" / "support" / "holding.py"
LIMIT = 300  # seconds a process may take before it counts as hung


def command(argv: list, root: Path, hold: Path = None) -> list:
    """The interpreter, the script (through support/holding.py when its loads are to be held) and --root."""
    held = [str(HELD_WRITE), str(hold)] if hold else []
    return [sys.executable, *held, str(ROOT / argv[0]) if not hold else argv[0], *argv[1:], "--root", str(root)]


def environment() -> dict:
    """This process's, with PYSPARK_PYTHON for holding.py's UDF and no SHOP_ROOT (--root says it)."""
    env = {key: value for key, value in os.environ.items() if key != "SHOP_ROOT"}
    return {**env, "PYSPARK_PYTHON": sys.executable}


def start(argv: list, root: Path, hold: Path = None, group: bool = False) -> subprocess.Popen:
    """Start argv in the project folder (in a process group of its own when group)."""
    return subprocess.Popen(command(argv, root, hold), cwd=ROOT, env=environment(), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=group)


def finish(process) -> tuple:
    """(exit code, stdout, stderr) of a process, once it has ended."""
    try:
        out, err = process.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        err += f"\n(killed by the model check after {LIMIT} s)"
    return process.returncode, out, err


def run(argv: list, root: Path) -> tuple:
    """Run argv to its end: (exit code, stdout, stderr)."""
    return finish(start(argv, root))


def killed_after(argv: list, root: Path, seconds: float) -> tuple:
    """Run argv in its own process group and SIGKILL the group after seconds; (killed while running, its
    exit code, stdout, stderr). A group that outlives the kill is an error."""
    process = start(argv, root, group=True)
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pass
    running = process.poll() is None
    if running:
        os.killpg(process.pid, signal.SIGKILL)
    code, out, err = finish(process)
    deadline = time.monotonic() + 30
    while group_members(process.pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not group_members(process.pid), f"a process of the killed {argv[0]} lives on"
    return running, code, out, err


def held_pair(argvs: list, root: Path, hold: Path) -> tuple:
    """Two writers, each a process whose load is held inside its Delta transaction until both are (or
    one has ended without holding: a refused run); then both go at once. (both held, [(code, out, err)])."""
    hold.mkdir(parents=True)
    processes = [start(argv, root, hold) for argv in argvs]
    try:
        deadline = time.monotonic() + LIMIT
        while (len(list(hold.glob("*.held"))) + sum(p.poll() is not None for p in processes) < len(processes)
               and time.monotonic() < deadline):
            time.sleep(0.05)
        both = len(list(hold.glob("*.held"))) == len(processes)
        release(hold)
        return both, [finish(process) for process in processes]
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()


class Reader:
    """tests/model/fresh_read.py --serve, one for each store the histories' roots are on (its session brings
    that store's connector), started at its first read and ended with this process (its stdin closes, or
    atexit stops it by its pid): each history's table read by a Spark other than the shared one."""
    processes, logs = {}, {}

    @classmethod
    def read(cls, root: Path) -> dict:
        """{"rows": ..., "partitioned": ...}, None for no table, or {"error": line} when it cannot be read."""
        store = str(root).split("://", 1)[0] if "://" in str(root) else "folder"
        process = cls.processes.get(store)
        if process is None or process.poll() is not None:
            process = cls.start(store)
        process.stdin.write(f"{root}\n")
        process.stdin.flush()
        line = process.stdout.readline()
        if not line:
            cls.logs[store].seek(0)
            return {"error": f"the reading process ended: {cls.logs[store].read()[-300:]}"}
        return json.loads(line)

    @classmethod
    def start(cls, store: str) -> subprocess.Popen:
        cls.logs[store] = tempfile.TemporaryFile("w+")
        cls.processes[store] = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "model" / "fresh_read.py"), "--serve"], cwd=ROOT, env=environment(),
            text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=cls.logs[store])
        atexit.register(cls.stop, store)
        return cls.processes[store]

    @classmethod
    def stop(cls, store: str):
        process = cls.processes.get(store)
        if process is not None and process.poll() is None:
            process.stdin.close()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def shell(argv: list) -> str:
    """argv as a command line to paste (the venv activated, in the project folder)."""
    return shlex.join(["python", *argv]) + ' --root "$R"'


def held_commands(argvs: list, name: str) -> str:
    """Two writers held together, as shell commands: both start, both are held, then go."""
    hold = f'"$R/{name}"'
    starts = " & ".join(f"python tests/support/holding.py {hold} {' '.join(argv)} --root \"$R\"" for argv in argvs)
    return (f"mkdir {hold}; {starts} & until [ $(ls {hold}/*.held 2>/dev/null | wc -l) -ge {len(argvs)} ]; "
            f"do sleep 0.2; done; touch {hold}/go; wait")


@contextmanager
def hold_folder(root):
    """Where held writers' hold folders go (tests/support/holding.py): the root when it is a folder, else a
    local folder for the history's run (a bucket's root has no folder to wait in), removed after it."""
    from shoptoolkit.storage.location import is_local
    if is_local(root):
        yield root
        return
    folder = Path(tempfile.mkdtemp(prefix="model_holds_"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fresh_root(folder: Path, on: str = None):
    """A new root for one history's run: a new folder below folder, or, given on (an object store's URI,
    s3a://BUCKET/PREFIX), a new prefix below it."""
    if not on:
        return Path(tempfile.mkdtemp(dir=folder)) / "root"
    from shoptoolkit.storage.location import location
    return location(f"{on.rstrip('/')}/{uuid.uuid4().hex[:12]}") / "root"
