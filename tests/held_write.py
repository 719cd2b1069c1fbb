"""Hold a write inside Delta's transaction until the test says go: a write conflict on purpose, not by timing.

The rows a write commits pass through a Python UDF that creates HOLD/<name>.held and waits until
HOLD/go exists. The UDF runs inside the write's Spark job, after Delta's transaction has read the
table version it will commit on top of: whatever commits meanwhile (the test itself, or another
held writer released at the same moment) is a commit this write did not see, so it loses a write
conflict. Once go exists the UDF lets rows pass at once, so a retry is not held.

As a process, a real writer in its own JVM:
    python tests/held_write.py HOLD load_day.py 2026-09-16
runs load_day.py's main with the day's rows held (marker HOLD/<pid>.held).
"""
import importlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def held(frame, hold: Path, name: str):
    """frame, whose rows wait at the UDF until hold/go exists; hold/<name>.held says one is waiting."""
    from pyspark.sql import functions as F

    def wait(_):
        import time as clock  # the UDF runs in a Python worker: what it uses travels with it
        if not (hold / "go").exists():
            (hold / f"{name}.held").touch()
            while not (hold / "go").exists():
                clock.sleep(0.05)
        return True
    # One task: while it waits it takes one of the session's task slots, and a test that commits
    # from the same session (two cores or more) still has one for its own jobs.
    return frame.coalesce(1).where(F.udf(wait, "boolean").asNondeterministic()(F.lit(0)))


def wait_held(hold: Path, count: int, ended=lambda: [], timeout: float = 300) -> None:
    """Wait until count writes are held; fail with what ended() returns (the output of writers that
    ended before they were held), if anything."""
    deadline = time.monotonic() + timeout
    while len(list(hold.glob("*.held"))) < count:
        early = ended()
        assert not early, early
        assert time.monotonic() < deadline, f"only {len(list(hold.glob('*.held')))} of {count} writes held"
        time.sleep(0.1)


def ended_processes(processes):
    """For wait_held: the outputs of the writer processes that have ended."""
    return lambda: [process.communicate() for process in processes if process.poll() is not None]


def release(hold: Path) -> None:
    (hold / "go").touch()


def main(hold: str, script: str, *args) -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the UDF's worker needs pyspark
    import load_day
    read_orders = load_day.read_orders
    name = str(os.getpid())
    load_day.read_orders = lambda spark, found, day: held(read_orders(spark, found, day), Path(hold), name)
    return importlib.import_module(Path(script).stem).main(list(args))


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:]))
