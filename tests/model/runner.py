"""Run one history against the real toolkit in a fresh project root, the model beside it, and stop at
the first divergence: after every operation the table's whole content, its new commits, and what the
operation printed (verdicts, states, choices, lines) are compared with the model's.
"""
import datetime as dt
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from model import kills, processes
from model import expect
from model.expect import TableMissing, day_state
from model.printed import same
from model.histories import days_of
from model.plans import plan_of
from model.replay import content_difference, content_of, follow, new_commits, table_content
from model.table_model import TableModel
from model.till import Till, file_bytes, shown

TILL_OPS = {"write": lambda till, day, op: till.write(day, op["pick"]),
            "big": lambda till, day, op: till.big(day, op["pick"]),
            "late": lambda till, day, op: till.late(day, op["pick"]),
            "correct": lambda till, day, op: till.correct(day, op["pick"]),
            "delete": lambda till, day, op: till.delete(day),
            "spoil": lambda till, day, op: till.spoil(day, op["kind"], op["pick"]),
            "restore_file": lambda till, day, op: till.restore(day, op["pick"]),
            "drop": lambda till, day, op: till.drop(day, op["pick"]),
            "gain": lambda till, day, op: till.gain(day, op["pick"]),
            "lose": lambda till, day, op: till.lose(day, op["pick"])}
SPARK_PATH_BYTES = 6_000  # a day's file from this size on is checked inside Spark in the shared session


@contextmanager
def spark_path_from(size: int):
    """Files of size bytes or more take the Spark path in the shared session, read in splits of 2 kB (as
    tests/till/test_spark_check.py lowers them), so that a history's big file runs it; put back after."""
    from shoptoolkit.till import day_frames
    from shoptoolkit.till import in_spark
    kept = in_spark.SPARK_CHECK_BYTES, day_frames.MIN_SPLIT
    in_spark.SPARK_CHECK_BYTES, day_frames.MIN_SPLIT = size, 2_000
    try:
        yield
    finally:
        in_spark.SPARK_CHECK_BYTES, day_frames.MIN_SPLIT = kept


@contextmanager
def session_zone(spark, zone: str):
    """The shared session's time zone while a history runs (a notebook's may be any): the toolkit's loads and
    checks in it must store and compare the files' UTC times all the same. UTC again after."""
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        yield
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


@dataclass
class Figures:
    histories: int = 0
    operations: int = 0
    kills: int = 0          # writers SIGKILLed while they ran: before a commit, inside a write, after a commit
    kills_before: int = 0
    kills_inside: int = 0
    kills_after: int = 0
    foreign: int = 0        # writes of another Delta client (model/foreign.py)
    big: int = 0            # big files written, checked inside Spark when loaded in the shared session
    pairs: int = 0          # two writers both held inside their transactions, then let go together
    refused: int = 0        # runs refused for their file (a bad line, an id of another day)
    divergences: int = 0
    seconds: float = 0.0

    def add(self, other: "Figures") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Run:
    """One history's run: its figures, the shell command of each operation, and what diverged ('' if nothing)."""
    figures: Figures = field(default_factory=Figures)
    commands: list = field(default_factory=list)
    divergence: str = ""
    kind: str = ""          # the check that diverged and the first day it names, e.g. `table 2026-09-10`:
                            # what shrinking keeps (`fresh read` after the last operation)
    printed: list = field(default_factory=list)  # the last operation's processes: (exit code, stdout, stderr)
    verdicts: dict = field(default_factory=dict)  # day: ((table version, file sha256), check_day's verdict)


def run_history(spark, history: dict, root) -> Run:
    """Every operation of history in root (a fresh folder), then another process's read of the table."""
    from shoptoolkit.storage.project_paths import root_at
    started, run = time.monotonic(), Run()
    (root / "landing" / "orders").mkdir(parents=True)
    days = days_of(history)
    model = TableModel(Till(days))
    with root_at(root), spark_path_from(SPARK_PATH_BYTES), session_zone(spark, history.get("zone", "UTC")), \
            processes.hold_folder(root) as holds:
        for at, op in enumerate(history["ops"]):
            run.figures.operations += 1
            problem = run_op(spark, op, model, days, root, holds / f"hold{at}", run)
            if problem:
                run.divergence = f"operation {at + 1} ({run.commands[-1]}): {problem}" + "".join(
                    f"\n  its process printed: exit {code}, stdout {out!r}, stderr {err[-2000:]!r}"
                    for code, out, err in run.printed)
                run.kind = divergence_kind(problem)
                break
        else:
            run.divergence = fresh_read(model, root)
            run.kind = "fresh read" if run.divergence else ""
    run.figures.histories, run.figures.divergences = 1, int(bool(run.divergence))
    run.figures.seconds = time.monotonic() - started
    return run


def divergence_kind(problem: str) -> str:
    """The check that diverged (table, history, states, printed, reading) and the first day it names."""
    day = re.search(r"\d{4}-\d\d-\d\d", problem)
    return f"{problem.split()[0].rstrip(':')} {day[0] if day else '-'}"


def run_op(spark, op: dict, model, days: list, root, hold, run: Run) -> str:
    """One operation and every check after it; what diverged, or ''."""
    if op["op"] in TILL_OPS:
        run.commands.append(till_op(op, model.till, days[op["day"]], root))
        run.figures.big += op["op"] == "big"
        return ""
    plan, known = plan_of(op, model, days), len(model.versions)
    if op["op"] == "foreign" and not plan.argv:
        run.commands.append(f"# another writer's {op['kind']}: nothing to do")
        return ""
    run.figures.foreign += op["op"] == "foreign"
    if op["op"] == "kill" and model.now is None:  # a first load killed may leave a folder without commits,
        op = {**op["target"], "process": True}      # which every script refuses (docs/bad_input.md): run it whole
    observed, killed = execute(spark, op, plan, root, hold, run, known)
    try:
        results, problem = follow(model, plan.threads, new_commits(spark, known), killed)
        problem = (problem or content_difference(model.now, table_content(spark))
                   or states_difference(spark, model, days, run.verdicts))
    except Exception as error:  # the table cannot be read in the shared session, as a notebook would read it
        from shoptoolkit.engine.spark_errors import one_line
        return f"reading: the shared session cannot read the table: {one_line(error)}"
    run.figures.refused += sum(not why.startswith(("no file", "no Delta", "version")) for thread in results
                               for outcome in thread for why in outcome.refused.values())
    if problem:
        return problem
    expected = expected_output(plan, model, results, killed)
    parts = list(zip(observed, expected)) if plan.parts else [(observed, expected)]
    at_once = bool(plan.parts) or (op.get("target", op).get("parallel", 1) > 1)
    if all(same(found, wanted, at_once, killed) for found, wanted in parts):
        return ""
    return f"printed {observed}, expected {expected}" + (" (a prefix of it: the writer was killed)" if killed else "")


def till_op(op: dict, till, day, root) -> str:
    """The till's change to day's file, made in the model and in root; its shell command."""
    command = TILL_OPS[op["op"]](till, day, op) or f"# {op['op']} {day}: nothing to do"
    path = root / shown(day)
    if till.files.get(day) is None:
        path.unlink(missing_ok=True)
    else:
        path.write_bytes(file_bytes(till.files[day]))
    return command


def states_difference(spark, model, days: list, verdicts: dict) -> str:
    """'' when every day's state (docs/reprocess.md), as --reprocess and check_month read it, is the model's,
    and check_day's verdict on every day is the model's too (so check_day and check_month agree). check_day
    reads the table's newest version and the day's file only: its verdict is asked again when either
    changed (verdicts keeps the last), and held against the model's after every step."""
    from check_day import check_day
    from shoptoolkit.truth.day_record import file_sha256
    from shoptoolkit.truth.day_truth import day_states
    from shoptoolkit.storage.project_paths import table_path
    differ, version = [], kills.newest(table_path())
    for found, day in zip(day_states(spark, days[0], days[-1]), days):
        state, _, line = day_state(model, day)
        if (found.state, found.message) != (state, line):
            differ.append(f"{day}: {found.state} ({found.message}), expected {state} ({line})")
        if model.now is None:
            continue
        key = (version, file_sha256(day))
        if verdicts.get(day, (None,))[0] != key:
            verdicts[day] = key, check_day(spark, day + dt.timedelta(days=1))
        verdict = verdicts[day][1]
        if verdict != expect.check_day(model, day + dt.timedelta(days=1)):
            differ.append(f"{day}: check_day {verdict}, expected {expect.check_day(model, day + dt.timedelta(days=1))}")
    return "states: " + "; ".join(differ) if differ else ""


def expected_output(plan, model, results, killed: bool = False):
    """What the model says the operation prints: (code, lines), or for two writers each one's. A writer
    killed before any of its writes was worked out may have printed nothing."""
    if killed and not any(results):
        return 1, []
    if plan.parts:
        at, each = 0, []
        for part in plan.parts:
            each.append(part.expect(model, results[at:at + len(part.threads)]))
            at += len(part.threads)
        return each
    try:
        return plan.expect(model, results)
    except TableMissing as error:
        return 1, [f"error: {error}"]


def execute(spark, op: dict, plan, root, hold, run: Run, known: int) -> tuple:
    """Run the operation as the history says: (what it printed, whether it was killed while it ran)."""
    run.printed = []
    if op["op"] == "writers":
        both, ended = processes.held_pair([part.argv for part in plan.parts], root, hold)
        run.printed = ended
        run.figures.pairs += both
        run.commands.append(processes.held_commands([part.argv for part in plan.parts], hold.name))
        return [part.parse(*printed) for part, printed in zip(plan.parts, ended)], False
    if op["op"] == "kill":
        table, before = root / "lake" / "orders_daily", kills.unlogged(root / "lake" / "orders_daily")
        running, code, out, err = processes.killed_after(plan.argv, root, op["after"])
        run.printed = [(code, out, err)]
        if running:
            where = kills.where(table, before, known)
            run.figures.kills += 1
            setattr(run.figures, f"kills_{where}", getattr(run.figures, f"kills_{where}") + 1)
        run.commands.append(f"(set -m; {processes.shell(plan.argv)} & sleep {op['after']}; kill -KILL -- -$!; wait)")
        return plan.parse(code, out, "" if running else err), running
    run.commands.append(processes.shell(plan.argv))
    if op.get("process"):
        run.printed = [processes.run(plan.argv, root)]
        return plan.parse(*run.printed[0]), False
    return call(spark, plan), False


def call(spark, plan) -> tuple:
    """The operation's function in the shared session; an error as the script prints it."""
    from shoptoolkit.engine.spark_errors import one_line
    try:
        return plan.call(spark, lambda line: None)
    except Exception as error:
        return 1, [f"error: {one_line(error)}"]


def fresh_read(model, root) -> str:
    """The table read by a Spark other than the shared session's (processes.Reader), compared with the
    model: rows and layout."""
    found = processes.Reader.read(root)
    if found is not None and "error" in found:
        return f"another process could not read the table: {found['error']}"
    problem = content_difference(model.now, None if found is None else content_of(found))
    if not problem and found is not None and found["partitioned"] != model.now.partitioned:
        problem = f"table: partitioned is {found['partitioned']}, expected {model.now.partitioned}"
    return problem and f"read by another process: {problem}"
