"""Ways timed side by side in one session, alternating (a, b, a, b), a line a try, with the peak memory
(VmHWM) of Python and of the driver's JVM reset before each try where Linux allows it: bench_engine.py's.

    from side_by_side import best, tries
    found = tries({"toolkit": partial(toolkit_day, spark, run), "plain Spark": partial(plain_day, spark, day)})
"""
import os
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path

from bench_commits import peak_mb


def jvm_pid():
    """The driver's JVM: the child of this process whose command line names java (pyspark starts
    spark-submit, which execs java), or None (a Spark Connect session has no JVM here)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            if parent == os.getpid() and b"java" in (stat.parent / "cmdline").read_bytes():
                return int(stat.parent.name)
        except (OSError, IndexError, ValueError):  # a process that ended meanwhile
            continue
    return None


def reset_peaks() -> bool:
    """Start the peak memory (VmHWM) of this process and of its JVM again from their present size (5 into
    /proc/PID/clear_refs); False where that is not allowed."""
    try:
        for pid in (os.getpid(), jvm_pid()):
            if pid is not None:
                Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def shown_mb(mb) -> str:
    return "-" if mb is None else f"{mb:,.0f} MB"


def tries(ways: dict, rounds: int = 2) -> dict:
    """Each way rounds times, alternating (a, b, a, b), a line a try. A way returns (seconds, what to add
    to its line). Return {way: [(seconds, Python's peak MB, the JVM's peak MB or None), ...]}."""
    found = {name: [] for name in ways}
    for number in range(1, rounds + 1):
        for name, way in ways.items():
            fresh = reset_peaks()
            seconds, detail = way()
            jvm = jvm_pid()
            found[name].append((seconds, peak_mb(os.getpid()), peak_mb(jvm) if jvm else None))
            since = "" if fresh else " since the process began"
            print(f"  {name}, try {number}: {seconds:.1f} s{detail}; peak memory{since}: Python "
                  f"{shown_mb(found[name][-1][1])}, JVM {shown_mb(found[name][-1][2])}", flush=True)
    return found


def best(found: dict, name: str) -> float:
    return min(seconds for seconds, _, _ in found[name])


@contextmanager
def other_tree(root: Path, commit: str):
    """A checkout of commit beside root's tree (a git worktree in a temporary folder), removed after."""
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / commit
        subprocess.run(["git", "worktree", "add", "--detach", str(tree), commit], cwd=root, check=True,
                       capture_output=True)
        try:
            yield tree
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=root, check=True)
