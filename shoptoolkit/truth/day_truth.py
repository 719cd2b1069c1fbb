"""One route to a day's truth, whoever asks (check_day, check_month, --reprocess, compaction's plan, the
model check's oracle of the toolkit's answer), in this order and never back:
  1. the files' facts, taken once: each day's file read once (size, sha256, line 1; a small file's
     bytes kept, so that its line-by-line check reads it no more), and its path chosen once, by size:
     checked in Python, or inside Spark (till/in_spark.py);
  2. the table's facts, taken once: one walk of the log's commits gives each day's load record, whether
     it still proves the day (day_record.py), and the lineage its rows come from; the rows (or, inside
     Spark, their counts) only of the days the record does not prove, in one scan;
  3. one comparison a day (day_compare.py in Python, spark_compare.py inside Spark);
  4. the day's state and its line, from verdict.py alone.

    from shoptoolkit.truth.day_truth import day_states
    for found in day_states(spark, "2026-09-01", "2026-09-30"):
        print(found.day, found.state)

No scheduler database is read: each load records its file's sha256 and its rows' digest in its commit;
after restore_day.py, a day's rows are those of the load it went back to. A load's lineage speaks for the
day only while the day holds the rows it wrote (the same digest): else it is ok or mismatch from its rows.
"""
import datetime as dt
import math
from dataclasses import dataclass

from shoptoolkit.dates import as_date, run_dates
from shoptoolkit.errors import ToolkitError
from shoptoolkit.row_values import rows_digest
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.table.delta_table import existing_table, table_exists
from shoptoolkit.table.load_lineage import commit_loads, restored_by
from shoptoolkit.till.in_python import FileFacts, file_facts, read_day_file
from shoptoolkit.till.in_spark import big_enough, checked_in_spark, spark_check_bytes
from shoptoolkit.till.new_columns import checking, current, using
from shoptoolkit.truth.day_compare import compare_checked, rows_of_day, stored_rows
from shoptoolkit.truth.day_record import CommitsOnce, newest_commits, recorded_checks, user_metadata
from shoptoolkit.truth.spark_compare import IDS_IN_PYTHON, all_missing_in_spark, compare_in_spark, table_digest
from shoptoolkit.truth.verdict import noted, state_of, without_file

# Small files' bytes a route keeps in all, to check them without a second read; past it, one is read again.
KEEP_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class DayState:
    """One day's state, with what it was found from."""
    day: dt.date
    state: str
    matches: bool           # compare_day's verdict: the rows are the file's orders, ids and values
    message: str            # compare_day's line, `ok ...` or `PROBLEM ...`
    rows: int
    file_sha256: str        # '' when there is no file
    loaded: dict            # the lineage of the load whose rows the day holds, {} when none does

    def as_json(self) -> dict:
        return {"day": str(self.day), "state": self.state, "rows": self.rows, "check": self.message,
                "file_sha256": self.file_sha256 or None,
                "loaded_sha256": self.loaded.get("sha256"), "loaded_by_run": self.loaded.get("run_date")}


def latest_loads(spark, first_day, last_day, commits=None) -> dict:
    """For each day from first_day to last_day, the lineage of the load its rows come from; one pass
    over the log's commits as JSON (what DESCRIBE HISTORY shows, without a Spark job), newest first. A
    restore_day commit puts a day back as at version N: the load that counts for the day is then its
    latest at or before N (a restore to before a restore goes further back in the same way). commits:
    the log's (CommitsOnce) when the caller walks them too; without, no table has no loads."""
    if commits is None and not table_exists(spark):
        return {}
    first, last, loads, before = as_date(first_day), as_date(last_day), {}, {}
    for version, actions in commits or newest_commits(table_path() / "_delta_log"):
        text = user_metadata(actions)
        restored = restored_by(text or "")
        if restored:
            for day in run_dates(max(first, restored[0]), min(last, restored[1])):  # [] outside the range
                if version <= before.get(day, math.inf):
                    before[day] = restored[2]
            continue
        for lineage in commit_loads(text or ""):
            day = as_date(lineage["day"])
            if first <= day <= last and day not in loads and version <= before.get(day, math.inf):
                loads[day] = lineage
    return loads


def speaks(loaded: dict, digest_now) -> dict:
    """The lineage when the day still holds the rows its load wrote (a lineage without a digest, from
    before it was recorded, is taken at its word), else {}. digest_now: a callable, asked only if needed."""
    if not loaded or "rows_digest" not in loaded:
        return loaded
    return loaded if loaded["rows_digest"] == digest_now() else {}


class DayTruth:
    """The facts of some days, each taken once, and the route from them to each day's DayState. A
    terminal check_day takes the record's answer before Spark starts and passes the facts on."""

    def __init__(self, days, deep: bool = False, checked=None):
        self.days, self.deep = [as_date(day) for day in days], deep
        self.checked = checked or {}  # {day: DayFile} a load has just read and checked: not read again
        self.commits = CommitsOnce(table_path() / "_delta_log")
        self.taken, self.answered = None, None

    def files(self) -> dict:
        """{day: FileFacts, or None for no file}: step 1, each file read once (a checked one not at all)."""
        if self.taken is None:
            self.taken, budget = {}, KEEP_BYTES
            for day in self.days:
                if day in self.checked:
                    self.taken[day] = FileFacts(self.checked[day].size, self.checked[day].sha256, b"")
                    continue
                facts = file_facts(day_file(day), keep_under=min(spark_check_bytes(), budget))
                budget -= len(facts.data) if facts and facts.data else 0
                self.taken[day] = facts
        return self.taken

    def size(self) -> int:
        """The days' files' bytes together, from their one read."""
        return sum(facts.size for facts in self.files().values() if facts)

    def proven(self) -> dict:
        """{day: (True, line)} of the days their load's record proves (none with deep): no data file read."""
        if self.answered is None:
            shas = {day: facts.sha256 if facts else "" for day, facts in self.files().items()}
            self.answered = {} if self.deep else recorded_checks(self.days, shas, self.commits)
        return self.answered

    def states(self, spark, today=None, lineage: bool = True, table=None) -> list:
        """The DayState of each day; today=None marks no day as future. lineage=False (check_day's) leaves
        the lineage unread and the state '' (only the comparison's verdict and line are asked); table:
        orders_table's frame when the caller has it."""
        table = existing_table(spark) if table is None else table
        proven = self.proven() if table is not None else {}
        loads = latest_loads(spark, self.days[0], self.days[-1], self.commits) if lineage and table is not None else {}
        with using(checking(table)):  # a file's new columns typed as the table holds them
            compared = self.compared(spark, table, [day for day in self.days if day not in proven])
        found = []
        for day in self.days:
            sha_now, loaded = self.files()[day].sha256 if self.files()[day] else "", loads.get(day, {})
            if day in proven:  # the record's rows are the file's orders, which the latest load recorded
                (matches, message), rows = proven[day], loaded.get("rows_written")
            else:
                matches, message, rows, digest_now = compared[day]
                loaded = speaks(loaded, digest_now) if lineage else {}
            state = state_of(day, matches, rows, sha_now, loaded, today) if lineage else ""
            found.append(DayState(day, state, matches, message, rows, sha_now, loaded))
        return found

    def compared(self, spark, table, days) -> dict:
        """Steps 2 and 3 for days the record does not prove: {day: (matches, message, rows, digest_now)}."""
        files = self.files()
        big = [day for day in days if day not in self.checked and files[day] and big_enough(files[day].size)]
        known = {day: (files[day].size, files[day].sha256, files[day].first) for day in big}
        in_spark = checked_in_spark(spark, big, digest=False, known=known) if big else {}
        small = {day: (self.checked[day], "") if day in self.checked else python_checked(day, files[day])
                 for day in days if day not in in_spark}
        many = [day for day, (found, _) in small.items()
                if found and (found.order_ids is None or found.count > IDS_IN_PYTHON)]  # None: checked in Spark
        in_python = [day for day in small if day not in many]
        in_table = {} if table is None or not in_python else stored_rows(
            spark, in_python[0], in_python[-1], [day for day in self.days if day not in in_python], table)
        found = {day: spark_compared(spark, table, day, checked.found, checked.refusal)
                 for day, checked in in_spark.items()}
        for day, (in_file, why) in small.items():
            if day in many:
                found[day] = spark_compared(spark, table, day, in_file, None)
                continue
            stored = in_table.get(day, [])
            digest_now = lambda rows=stored: rows_digest(rows)  # noqa: E731 (asked only if the lineage needs it)
            found[day] = (*compare_checked(day, in_file, why, stored), len(stored), digest_now)
        seen = {**{day: checked.found for day, checked in in_spark.items()}, **{d: f for d, (f, _) in small.items()}}
        return {day: noted(verdict, current().absent(seen[day].columns) if seen[day] else [])
                for day, verdict in found.items()}


def python_checked(day, facts) -> tuple:
    """(DayFile, '') of a file checked in Python from its kept bytes (read again if not kept), or None
    and why: no file, or its refusal."""
    if facts is None:
        return None, "no file"
    try:
        return read_day_file(day, data=facts.data), ""
    except ToolkitError as error:
        return None, f"bad file ({error})"


def spark_compared(spark, table, day, found, refusal) -> tuple:
    """(matches, message, rows, digest_now) of a day compared inside Spark (found: its DayFile, or its
    refusal): the comparison counts the day's rows as it goes."""
    if found and table is not None:
        matches, message, rows = compare_in_spark(spark, found, day, table)
    elif found:  # no table yet: every order of the file is missing
        (matches, message), rows = all_missing_in_spark(spark, found, day), 0
    else:
        rows = rows_of_day(spark, day, table) if table is not None else 0
        matches, message = without_file(day, f"bad file ({refusal})", rows)
    return matches, message, rows, lambda: table_digest(spark, day, table)


def day_states(spark, first_day, last_day, today=None) -> list:
    """The DayState of every day from first_day to last_day (the route above); today=None marks no day
    as future."""
    return DayTruth(run_dates(first_day, last_day)).states(spark, today)
