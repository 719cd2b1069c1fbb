"""The state of every day in a range, from the landing files, orders_daily and its history alone.

    from shoptoolkit.day_states import day_states
    for found in day_states(spark, "2026-09-01", "2026-09-30"):
        print(found.day, found.state)

A day is, checked in this order:
  future    its run date is after `today` (only when a today is given)
  no file   no landing file, whether the table has rows for it or not
  missing   a file but no rows
  ok        the rows are the file's orders, ids and values (check_day's verdict)
  changed   the rows are still those the day's latest load wrote, from a file whose sha256 was another
  mismatch  any other difference (or the file does not pass the checks)
No scheduler database is read: each load records its file's sha256 and its rows' digest in its commit
(load_day's lineage); after restore_day.py, a day's rows are those of the load it went back to. A load's
lineage speaks for the day only while the day holds exactly the rows it wrote (the same digest): once
another writer changed them, the day is ok or mismatch from its rows alone.
"""
import datetime as dt
import math
from dataclasses import dataclass

from shoptoolkit.day_compare import checked_file, compare_checked, rows_of_day, stored_rows, without_file
from shoptoolkit.day_record import file_sha256, newest_commits, recorded_checks, user_metadata
from shoptoolkit.lineage import commit_loads, restored_by
from shoptoolkit.row_values import rows_digest
from shoptoolkit.run_args import as_date, day_loaded_by, run_dates
from shoptoolkit.file_check.in_spark import checked_in_spark, spark_sized
from shoptoolkit.spark_compare import all_missing_in_spark, compare_in_spark, table_digest
from shoptoolkit.project_paths import table_path
from shoptoolkit.table import table_exists

STATES = ("ok", "changed", "mismatch", "missing", "no file", "future")


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


def latest_loads(spark, first_day, last_day) -> dict:
    """For each day from first_day to last_day, the lineage of the load its rows come from; one pass
    over the log's commits as JSON (what DESCRIBE HISTORY shows, without a Spark job), newest first. A
    restore_day commit puts a day back as at version N: the load that counts for the day is then its
    latest at or before N (a restore to before a restore goes further back in the same way)."""
    if not table_exists(spark):
        return {}
    first, last, loads, before = as_date(first_day), as_date(last_day), {}, {}
    for version, actions in newest_commits(table_path() / "_delta_log"):
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


def state_of(day: dt.date, matches: bool, rows: int, sha_now: str, loaded: dict, today=None) -> str:
    if today is not None and day_loaded_by(as_date(today)) < day:
        return "future"
    if not sha_now:
        return "no file"
    if rows == 0:
        return "missing"
    if matches:
        return "ok"
    return "changed" if loaded and loaded["sha256"] != sha_now else "mismatch"


def speaks(loaded: dict, digest_now) -> dict:
    """The lineage when the day still holds the rows its load wrote (a lineage without a digest, from
    before it was recorded, is taken at its word), else {}. digest_now: a callable, asked only if needed."""
    if not loaded or "rows_digest" not in loaded:
        return loaded
    return loaded if loaded["rows_digest"] == digest_now() else {}


def day_states(spark, first_day, last_day, today=None) -> list:
    """The DayState of every day from first_day to last_day; today=None marks no day as future. A day
    its load's record proves (day_record.py) reads no data file; of the others, a big day's file is
    checked, hashed and compared inside Spark (all such days in one query)."""
    days = run_dates(first_day, last_day)
    shas = {day: file_sha256(day) for day in days}
    proven = recorded_checks(days, shas) if table_exists(spark) else {}
    big = [day for day in days if day not in proven and spark_sized([day])]
    in_spark = checked_in_spark(spark, big, digest=False) if big else {}
    in_table = stored_rows(spark, days[0], days[-1], big + list(proven)) if table_exists(spark) else {}
    loads = latest_loads(spark, days[0], days[-1])
    found = []
    for day in days:
        loaded = loads.get(day, {})
        if day in proven:  # the record's rows are the file's orders, which the latest load recorded
            (matches, message), rows, sha_now = proven[day], loaded["rows_written"], shas[day]
        elif day in in_spark:
            matches, message, rows, sha_now = big_day(spark, day, in_spark[day])
            loaded = speaks(loaded, lambda: table_digest(spark, day))
        else:
            stored = in_table.get(day, [])
            in_file, why = checked_file(day)
            matches, message = compare_checked(day, in_file, why, stored)
            rows, sha_now = len(stored), shas[day]
            loaded = speaks(loaded, lambda: rows_digest(stored))
        found.append(DayState(day, state_of(day, matches, rows, sha_now, loaded, today),
                              matches, message, rows, sha_now, loaded))
    return found


def big_day(spark, day, checked) -> tuple:
    """(matches, message, rows, sha256) of a day whose file Spark checked (in_spark.Checked)."""
    rows = rows_of_day(spark, day) if table_exists(spark) else 0
    if checked.found and table_exists(spark):
        matches, message = compare_in_spark(spark, checked.found, day)
    elif checked.found:  # no table yet: every order of the file is missing
        matches, message = all_missing_in_spark(spark, checked.found, day)
    else:
        matches, message = without_file(day, f"bad file ({checked.refusal})", rows)
    return matches, message, rows, checked.sha256
