"""What a commit's user metadata records, written by the loads and restore_day.py and read back by the
day states (the calendar, --reprocess), history.py and restore_day.py.

    load_day's commit      {"run_date": ..., "day": ..., "file": ..., "size": ..., "sha256": ..., "rows_read": ...,
                            "rows_written": ..., "lowest": ..., "highest": ..., "rows_digest": ...,
                            "columns_added": {"channel": "STRING"}, "columns_absent": ["channel"]}
                           (the last two only when it added a column, or its file lacks one the table has)
                           (the file's order ids' range, and row_values' digest of its rows)
    a commit of many days  {"days": [one such entry a day]}          (commit_days.py)
    restore_day's commit   restore_day: 2026-09-15 from version 29    (or a range `A .. B`)
"""
import datetime as dt
import json
import re

from shoptoolkit.dates import as_date
from shoptoolkit.storage.project_paths import shown
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN
from shoptoolkit.till.in_python import DayFile

# The user metadata of restore_day's commit: `restore_day: 2026-09-15 from version 29`, or a range `A .. B`;
# a write that gives way to an earlier one (late_clash.py) adds its reason in brackets.
NOTE = re.compile(r"restore_day: (\d{4}-\d\d-\d\d)(?: \.\. (\d{4}-\d\d-\d\d))? from version (\d+)(?: \(.*\))?")


def lineage_entry(run_date: dt.date, day: dt.date, found: DayFile, added: dict = None, absent: list = None) -> dict:
    """What a load of one day wrote: its run, its day, and its file's size, sha256, rows and order ids'
    range (what check_day's shortcut, day_record.py, compares with the commit's file statistics), the
    digest of its rows (day_truth.py: whether the day still holds them), the columns it added to the
    table ({name: type}, till/new_columns.py) and the table's new columns its file lacks, if any."""
    entry = {"run_date": str(run_date), "day": str(day), "file": shown(found.path), "size": found.size,
             "sha256": found.sha256, "rows_read": found.count, "rows_written": found.count,
             "lowest": found.lowest, "highest": found.highest}
    entry = {**entry, "rows_digest": found.rows_digest} if found.rows_digest else entry
    entry = {**entry, "columns_added": added} if added else entry
    return {**entry, "columns_absent": absent} if absent else entry


def lineage(run_date: dt.date, day: dt.date, found: DayFile, added: dict = None, absent: list = None) -> str:
    """What a commit of one day loaded, as JSON for the commit's user metadata."""
    return json.dumps(lineage_entry(run_date, day, found, added, absent), sort_keys=True)


def commit_loads(text: str) -> list:
    """The lineage of each day a commit loaded: one for load_day's commit, one a day for load_days'
    ({"days": [...]}); [] for user metadata some other tool wrote."""
    try:
        found = json.loads(text)
    except ValueError:
        return []
    entries = found["days"] if isinstance(found, dict) and isinstance(found.get("days"), list) else [found]
    return [entry for entry in entries if isinstance(entry, dict) and "sha256" in entry and "day" in entry]


def widens(metadata: dict) -> bool:
    """Whether a commit's metaData action gives the table a column beyond the till's and the day (a new
    column, till/new_columns.py): a load before it no longer proves its day by its record alone."""
    return any(one["name"] not in (*COLUMNS, PARTITION_COLUMN) for one in json.loads(metadata["schemaString"])["fields"])


def days_label(first_day, last_day) -> str:
    return str(first_day) if first_day == last_day else f"{first_day} .. {last_day}"


def restore_note(first_day, last_day, version: int) -> str:
    return f"restore_day: {days_label(first_day, last_day)} from version {version}"


def restored_by(user_metadata: str):
    """(first day, last day, version) of a restore_day commit's user metadata; None for any other commit."""
    found = NOTE.fullmatch(user_metadata or "")
    if not found:
        return None
    first, last, version = found.groups()
    return as_date(first), as_date(last or first), int(version)
