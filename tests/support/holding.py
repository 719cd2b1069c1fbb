"""Hold a write inside Delta's transaction until the test says go: a write conflict on purpose, not by timing.

The rows a write commits pass through a filter that creates HOLD/<name>.held and waits until
HOLD/go exists. The filter runs inside the write's Spark job, after Delta's transaction has read the
table version it will commit on top of: whatever commits meanwhile (the test itself, or another
held writer released at the same moment) is a commit this write did not see, so it loses a write
conflict. Once go exists the filter lets rows pass at once, so a retry is not held.

In a process started as below, the filter is Java's (java/HeldRows.java, through Spark SQL's reflect:
`python tests/support/holding.py --build` makes its JAR at test setup, and the process's sessions get it
in spark.jars), so a held JVM starts no Python worker (1.3 CPU-s each). A session without that JAR (the
suite's own, a kernel's, a Spark Connect server's) holds with a Python UDF that does the same.

As a process, a real writer in its own JVM:
    python tests/support/holding.py HOLD load_day.py 2026-09-16
runs load_day.py's main with the day's rows held (marker HOLD/<pid>.held);
    python tests/support/holding.py --rounds load_day.py HOLD1=2026-09-03 HOLD2=2026-09-11
makes one held write a round in the same process (and JVM): each round waits for HOLD/start, runs
the script's main with that run date held on HOLD, then prints `round HOLD exit N`;
    python tests/support/holding.py --first-loses HOLD parallel.py [ARGS]
runs parallel.py's main with its runs in one session ordered by first_loses: of N runs started
together, exactly N - 1 commit and the first loses a write conflict.
"""
import importlib
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from shoptoolkit.places import SHARE  # noqa: E402

HOLD_CLASS = "HeldRows"
HOLD_JAR = SHARE / "held-rows.jar"  # --build's, beside the toolkit's own JARs


def held(frame, hold: Path, name: str):
    """frame, whose rows wait at the filter until hold/go exists; hold/<name>.held says one is waiting.
    One task: while it waits it takes one of the session's task slots, and a test that commits from the
    same session (two cores or more) still has one for its own jobs."""
    from pyspark.sql import functions as F
    if HOLD_JAR.name in frame.sparkSession.conf.get("spark.jars", ""):
        # reflect() is nondeterministic to the optimizer: the filter stays in the write, row by row.
        waits = F.call_function("reflect", *map(F.lit, (HOLD_CLASS, "hold", str(hold), name))).isNotNull()
        return frame.coalesce(1).where(waits)

    def wait(_):
        import time as clock  # the UDF runs in a Python worker: what it uses travels with it
        if not (hold / "go").exists():
            (hold / f"{name}.held").touch()
            while not (hold / "go").exists():
                clock.sleep(0.05)
        return True
    return frame.coalesce(1).where(F.udf(wait, "boolean").asNondeterministic()(F.lit(0)))


def with_hold_jar() -> None:
    """Sessions this process starts from now on have HOLD_JAR in spark.jars, beside the toolkit's own
    (spark_jvm.log_store's), once --build has made it."""
    from shoptoolkit.engine import spark_jvm
    if not HOLD_JAR.exists():
        return
    toolkit_jars = spark_jvm.log_store

    def with_hold():
        jars, settings = toolkit_jars()
        return [*jars, str(HOLD_JAR)], settings
    spark_jvm.log_store = with_hold


def build() -> Path:
    """Compile java/HeldRows.java (the JDK alone) into HOLD_JAR, replaced in one rename."""
    from shoptoolkit.engine.log_store import javac
    HOLD_JAR.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="held-rows-") as classes:
        subprocess.run([javac(), "--release", "17", "-d", classes, str(Path(__file__).parent / "java" / "HeldRows.java")],
                       check=True)
        partial = HOLD_JAR.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w") as archive:
            archive.write(Path(classes) / f"{HOLD_CLASS}.class", f"{HOLD_CLASS}.class")
        os.replace(partial, HOLD_JAR)
    return HOLD_JAR


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
    from shoptoolkit.till import in_python
    import load_day
    name = str(os.getpid())
    load_day.read_orders = lambda spark, found, day: held(in_python.read_orders(spark, found, day), hold, name)


class RoundWriter:
    """python tests/support/holding.py --rounds load_day.py ...: one process (one JVM) that makes one held
    write a round, with env (else this process's environment); round_result() waits for the end of its next round."""

    def __init__(self, rounds, cwd, env=None):
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--rounds", "load_day.py",
             *(f"{hold}={day}" for hold, day in rounds)],
            cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line.rstrip("\n")) for line in self.process.stdout],
                         daemon=True).start()

    def round_result(self) -> tuple:
        """(exit code, lines printed) of the round that ends next."""
        lines = []
        while True:
            line = self.lines.get(timeout=600)
            ended = re.fullmatch(r"round \S+ exit (\d+)", line)
            if ended:
                return int(ended.group(1)), lines
            lines.append(line)

    def ended(self):
        return self.process.stderr.read() if self.process.poll() is not None else None


def start_round(hold: Path, writers) -> None:
    """Start the round of RoundWriters on hold (their hold folder, its start file) and wait until each
    one's write is held; a writer that ended meanwhile fails the wait with its stderr."""
    hold.mkdir()
    (hold / "start").touch()
    wait_held(hold, len(writers), lambda: [err for err in (writer.ended() for writer in writers) if err is not None])


def newest_version(table: Path) -> int:
    """The table's newest commit, from its log's file names (-1 when it has none)."""
    return max((int(path.stem) for path in (table / "_delta_log").glob("*.json") if path.stem.isdigit()), default=-1)


def wait_until(condition, what: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"gave up after {timeout:.0f} s waiting for {what}"
        time.sleep(0.05)


def first_loses(hold: Path, run_dates):
    """A read_orders for load_day that forces the outcome of runs started together in one session
    (parallel.py's run_at_once): the first run's write is held inside its transaction (HOLD/first.held);
    each other run waits, before its own transaction starts, for that hold and then for its turn (the
    table one commit further for each run before it in date order), so they commit one by one; once the
    last has committed, HOLD/go lets the held write go on, and it loses a write conflict to commits it
    did not see. Only one write is held at a time: it works on two task slots. Once go exists, every
    load passes as it is (a retry of the loser, any later load)."""
    from shoptoolkit.till import in_python
    from shoptoolkit.storage.project_paths import table_path
    from shoptoolkit.dates import as_date, day_loaded_by
    hold.mkdir(parents=True, exist_ok=True)
    first, *others = sorted(day_loaded_by(as_date(run_date)) for run_date in run_dates)
    start = []  # the table's version when the first write was held: every other run read it or later
    lock = threading.Lock()

    def started() -> int:
        wait_until(lambda: (hold / "first.held").exists(), f"the write of {first} to be held")
        with lock:
            if not start:
                start.append(newest_version(table_path()))
        return start[0]

    def release_after_the_others():
        version = started()
        wait_until(lambda: newest_version(table_path()) >= version + len(others), "the other runs' commits", 600)
        release(hold)

    def read_orders(spark, found, day):
        frame = in_python.read_orders(spark, found, day)
        if (hold / "go").exists():
            return frame
        if day == first:
            threading.Thread(target=release_after_the_others, daemon=True).start()
            return held(frame, hold, "first")
        version = started() + others.index(day)
        wait_until(lambda: newest_version(table_path()) >= version, f"commit {version} before the run of {day}")
        return frame
    return read_orders


def hold_first_run(hold: Path, run_dates) -> None:
    """From now on, loads in this process follow first_loses(hold, run_dates)."""
    import load_day
    load_day.read_orders = first_loses(hold, run_dates)


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


def first_run_loses(hold: str, script: str, *args) -> int:
    """The script's main (parallel.py's) with its runs, as its parse_args gives them, ordered by first_loses."""
    module = importlib.import_module(Path(script).stem)
    hold_first_run(Path(hold).resolve(), module.parse_args(list(args)).run_dates)
    return module.main(list(args))


if __name__ == "__main__":
    if sys.argv[1:] == ["--build"]:
        print(f"built {build()}")
        raise SystemExit(0)
    with_hold_jar()
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # a Python UDF's worker (no HOLD_JAR) needs pyspark
    if sys.argv[1] == "--rounds":
        raise SystemExit(rounds(*sys.argv[2:]))
    if sys.argv[1] == "--first-loses":
        raise SystemExit(first_run_loses(*sys.argv[2:]))
    raise SystemExit(main(*sys.argv[1:]))
