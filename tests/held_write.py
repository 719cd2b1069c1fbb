"""Hold a write inside Delta's transaction until the test says go: a write conflict on purpose, not by timing.

The rows a write commits pass through a Python UDF that creates HOLD/<name>.held and waits until
HOLD/go exists. The UDF runs inside the write's Spark job, after Delta's transaction has read the
table version it will commit on top of: whatever commits meanwhile (the test itself, or another
held writer released at the same moment) is a commit this write did not see, so it loses a write
conflict. Once go exists the UDF lets rows pass at once, so a retry is not held.

As a process, a real writer in its own JVM:
    python tests/held_write.py HOLD load_day.py 2026-09-16
runs load_day.py's main with the day's rows held (marker HOLD/<pid>.held);
    python tests/held_write.py --rounds load_day.py HOLD1=2026-09-03 HOLD2=2026-09-11
makes one held write a round in the same process (and JVM): each round waits for HOLD/start, runs
the script's main with that run date held on HOLD, then prints `round HOLD exit N`.
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


def hold_loads(hold: Path) -> None:
    """From now on, the rows of every load_day write in this process are held on hold."""
    import day_file_check
    import load_day
    name = str(os.getpid())
    load_day.read_orders = lambda spark, found, day: held(day_file_check.read_orders(spark, found, day), hold, name)


def main(hold: str, script: str, *args) -> int:
    hold_loads(Path(hold))
    return importlib.import_module(Path(script).stem).main(list(args))


def rounds(script: str, *rounds: str) -> int:
    """One held write a round, each HOLD=RUN_DATE, in this one process: a round starts once HOLD/start exists."""
    for spec in rounds:
        hold, run_date = spec.rsplit("=", 1)
        while not (Path(hold) / "start").exists():
            time.sleep(0.05)
        hold_loads(Path(hold))
        code = importlib.import_module(Path(script).stem).main([run_date])
        print(f"round {Path(hold).name} exit {code}", flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the UDF's worker needs pyspark
    if sys.argv[1] == "--rounds":
        raise SystemExit(rounds(*sys.argv[2:]))
    raise SystemExit(main(*sys.argv[1:]))
