"""The Plan of upkeep.py (docs/upkeep.md): September, a closed month once `today` is in October, compacted
in one commit when its days are in more files than compaction makes of them (one file; a file a day on
a partitioned table), each day's lineage carried; the undo window set in a commit the first time only;
VACUUM's two commits. Rows, lineage and day states stay as they were; a dry run commits nothing.

Which files hold September is read from the table's Delta log itself (its add and remove actions, each
file's size and its first and last order_date), not asked of the toolkit: the model cannot know how
many files Spark wrote, as it cannot know which of two writers at once commits first.
"""
import datetime as dt
import json
import re
from dataclasses import replace

from model.plan import ONE_DAY, Plan, error_or, printed
from model.table_model import TABLE_MISSING, Outcome

MONTH, MONTH_END = "2026-09", "2026-09-30"
WINDOW = "35 days"  # upkeep's default undo window: the model check never gives --window
WINDOW_SET = f"orders_daily keeps {WINDOW} of undo: deleted files {WINDOW}, its log 65 days"
COMMIT = re.compile(r"\d{20}\.json")
WHEN = re.compile(r"\(\d{4}-\d\d-\d\d \d\d:\d\d UTC\)")  # a commit's time, which the model cannot know
SOME_TIME = "(YYYY-MM-DD HH:MM UTC)"


def log_files(table) -> list:
    """(bytes, first day, last day) of each data file with rows in the table's newest version, replayed
    from its Delta log's commits."""
    files = {}
    for commit in sorted(path for path in (table / "_delta_log").iterdir() if COMMIT.fullmatch(path.name)):
        for action in map(json.loads, commit.read_text().splitlines()):
            if "add" in action:
                files[action["add"]["path"]] = action["add"]
            elif "remove" in action:
                files.pop(action["remove"]["path"], None)
    return [spans(add) for add in files.values() if json.loads(add["stats"])["numRecords"] > 0]


def spans(add: dict) -> tuple:
    """A file's (bytes, first day, last day): its partition's day, else its order_date statistics."""
    stats, day = json.loads(add["stats"]), (add.get("partitionValues") or {}).get("order_date")
    return add["size"], day or stats["minValues"]["order_date"], day or stats["maxValues"]["order_date"]


def month_days(files: list) -> list:
    """The days the files cover, each file from its first day to its last (a day without rows included)."""
    days = set()
    for _, first, last in files:
        day = dt.date.fromisoformat(first)
        while str(day) <= last:
            days.add(str(day))
            day += ONE_DAY
    return sorted(days)


def september(model, files: list) -> tuple:
    """(the month's line as a dry run says it, '' without files; the compaction's Outcome on the model as
    it is: a commit when the month's days are in more files than it makes, else its line only)."""
    if model.now is None:
        return "", Outcome(refused={None: TABLE_MISSING})
    if not files:
        return "", Outcome()
    days, size = month_days(files), sum(size for size, _, _ in files)
    target = len(days) if model.now.partitioned else 1
    if len(files) <= target:
        line = f"{MONTH}: {len(files)} file{'s' if len(files) > 1 else ''}, nothing to compact"
        return line, Outcome(line=line)
    line = (f"{MONTH}: {len(days)} days in {len(files)} files ({size:,} bytes) -> "
            f"{target} file{'s' if target > 1 else ''}")
    lineage = [model.now.loaded[day] for day in days if day in model.now.loaded]
    entry = {"operation": "WRITE", "predicate": f"order_date >= DATE'{MONTH}-01' AND order_date <= DATE'{MONTH_END}'",
             "rows_written": model.now.total(), "lineage": {"days": lineage, "upkeep": f"compacted {MONTH}"},
             "note": ""}
    return f"would compact {line}", Outcome(model.now, entry, line=f"compacted {line}; version {len(model.versions)}")


def marker(operation: str, line: str = ""):
    """A step whose commit changes no row: the window's properties, VACUUM START, VACUUM END."""
    def step(model):
        if model.now is None:
            return Outcome(refused={None: TABLE_MISSING})
        window = operation == "SET TBLPROPERTIES"  # another writer's SET TBLPROPERTIES sets no window
        if window and model.now.window:
            return Outcome()  # the window is set already: no commit, no line
        return Outcome(replace(model.now, window=model.now.window or window), {
            "operation": operation, "predicate": "-", "rows_written": 0, "lineage": {}, "note": ""}, line=line)
    return step


def vacuum_line() -> str:
    """VACUUM deletes no file: every file a version of the history needs, or a killed writer left, is
    younger than the window. The files on disk now are those it found."""
    from shoptoolkit.storage.project_paths import table_path
    table = table_path()
    found = sum(1 for path in table.rglob("*.parquet") if "_delta_log" not in path.relative_to(table).parts)
    return (f"VACUUM deleted 0 of {found} data files; undo window {WINDOW}: restore_day.py can go back to "
            f"version 0 {SOME_TIME} or later")  # the table's first version is inside the window


def upkeep_plan(op, model, days) -> Plan:
    """upkeep.py --today (a day of October) [--dry-run] [--no-vacuum]."""
    from shoptoolkit.storage.project_paths import table_path
    vacuum, dry = op.get("vacuum", True), op.get("dry_run", False)
    argv = ["upkeep.py", "--today", op["today"], *(["--dry-run"] if dry else []), *([] if vacuum else ["--no-vacuum"])]
    files = log_files(table_path()) if model.now else []

    def call(spark, show):
        from upkeep import upkeep
        return 0, [WHEN.sub(SOME_TIME, line) for line in upkeep(spark, op["today"], dry_run=dry, vacuum=vacuum,
                                                                   show=show)]

    def parse(code, out, err):
        code, lines = printed(code, out, err)
        return code, [WHEN.sub(SOME_TIME, line) for line in lines]
    if dry:
        return Plan(argv, call, lambda model, results: dry_run(model, files), parse=parse)
    steps = [lambda model: september(model, files)[1], marker("SET TBLPROPERTIES", WINDOW_SET)]
    steps += [marker("VACUUM START"), marker("VACUUM END")] if vacuum else []

    def expected(model, results):
        outcomes = results[0]
        return error_or(outcomes[0], [outcome.line for outcome in outcomes if outcome.line] +
                        ([vacuum_line()] if vacuum else []))
    return Plan(argv, call, expected, [steps], parse)


def dry_run(model, files: list) -> tuple:
    """upkeep.py --dry-run's lines: what it would compact, the window; nothing written."""
    line, outcome = september(model, files)
    return error_or(outcome, ([line] if line else []) + [
        f"dry run: undo window {WINDOW}; VACUUM would delete the files replaced longer ago than that; "
        f"nothing written (version {len(model.versions) - 1})"])
