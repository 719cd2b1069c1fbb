"""Delta logs written by hand (no Spark), and what the load's record proves of a day in each: the cases
of docs/check.md's rules, asked of a folder by truth/test_day_record.py and of a bucket by
storage/test_storage.py.

Each commit is a list of actions as Delta writes them (or a text that is not JSON), None for a version
missing from the log; LOGS maps a case to (its commits, what recorded_checks finds for DAY)."""
import datetime as dt
import hashlib
import json

from shoptoolkit.storage.project_paths import day_file, root_at, table_path
from shoptoolkit.truth.day_record import recorded_checks

DAY = dt.date(2026, 9, 15)
LINES = b"order_id,customer_id,amount,ordered_at\n7,C1,1.00,2026-09-15T10:00:00\n9,C2,2.00,2026-09-15T11:00:00\n"
OK_LOG = (True, "ok 2026-09-15: 2 rows for the file's 2 orders, 0 missing")


def added(path: str, first: str, last: str, rows: int = 2, low: int = 7, high: int = 9, **more) -> dict:
    stats = {"numRecords": rows, "minValues": {"order_id": low, "order_date": first},
             "maxValues": {"order_id": high, "order_date": last}}
    return {"add": {"path": path, "partitionValues": {}, "stats": json.dumps(stats), **more}}


def loaded(days=(str(DAY),), **entry) -> dict:
    lineage = [{"day": day, "run_date": "2026-09-16", "sha256": hashlib.sha256(LINES).hexdigest(),
                "rows_written": 2, "lowest": 7, "highest": 9, **entry} for day in days]
    return {"commitInfo": {"userMetadata": json.dumps(lineage[0] if len(days) == 1 else {"days": lineage})}}


def found_in_log(folder, commits):
    """What recorded_checks finds for DAY below folder, whose table's log holds commits."""
    with root_at(folder):
        day_file(DAY).parent.mkdir(parents=True)
        day_file(DAY).write_bytes(LINES)
        log = table_path() / "_delta_log"
        log.mkdir(parents=True)
        for version, actions in enumerate(commits):
            text = actions if isinstance(actions, str) else "".join(json.dumps(action) + "\n" for action in actions or [])
            if actions is not None:
                (log / f"{version:020d}.json").write_text(text)
        return recorded_checks([DAY]).get(DAY)


LOAD = [loaded(), added("a.parquet", "2026-09-15", "2026-09-15")]
OTHER_DAY = [added("b.parquet", "2026-09-16", "2026-09-16")]
TWO_DAYS = [loaded(("2026-09-15", "2026-09-16")), added("a.parquet", "2026-09-15", "2026-09-16", rows=4)]
LOGS = {
    "a load": ([LOAD], OK_LOG),
    "a load, then another day's file": ([LOAD, OTHER_DAY], OK_LOG),
    "a load, then a file that takes in the day": ([LOAD, [added("b.parquet", "2026-09-14", "2026-09-16")]], None),
    "a load, then a file without statistics": ([LOAD, [{"add": {"path": "b.parquet"}}]], None),
    "a load, then its file removed": ([LOAD, [{"remove": {"path": "a.parquet"}}]], None),
    "a load, then a gap in the log": ([LOAD, None, OTHER_DAY], None),
    "a load, then a commit that is not JSON": ([LOAD, "{not json\n"], None),
    "a load, then a restore of the day": ([LOAD, [{"commitInfo": {"userMetadata": "restore_day: 2026-09-15 from version 0"}}]], None),
    "a load whose file lacks a row": ([[loaded(), added("a.parquet", "2026-09-15", "2026-09-15", rows=1, high=7)]], None),
    "a load whose file has a deletion vector": ([LOAD[:1] + [added("a.parquet", "2026-09-15", "2026-09-15",
                                                                   deletionVector={"storageType": "u"})]], None),
    "a load of one day beside the month's rows Delta copied": (
        [LOAD + [added("m.parquet", "2026-09-01", "2026-09-30", rows=50, low=1, high=99)]], OK_LOG),
    "a commit of two days whose file holds both": ([TWO_DAYS], OK_LOG),
    "a commit of two days, then a file of the other day": ([TWO_DAYS, [added("b.parquet", "2026-09-16", "2026-09-16")]],
                                                           OK_LOG),
    "a commit of two days, then their file removed": ([TWO_DAYS, [{"remove": {"path": "a.parquet"}}]], None),
    "a commit of two days whose file lacks a row": ([TWO_DAYS[:1] + [added("a.parquet", "2026-09-15", "2026-09-16",
                                                                           rows=3)]], None),
    "a commit of two days whose file has a deletion vector": ([TWO_DAYS[:1] + [added(
        "a.parquet", "2026-09-15", "2026-09-16", rows=4, deletionVector={"storageType": "u"})]], None),
    "a commit of two days, a file of the day and one that takes it in": (
        [[loaded(("2026-09-15", "2026-09-16"))] + LOAD[1:] + [added("x.parquet", "2026-09-15", "2026-09-16")]], OK_LOG),
    "a commit of two days, a file of the day and one of both short of a row": (
        [[loaded(("2026-09-15", "2026-09-16"))] + LOAD[1:] + [added("x.parquet", "2026-09-15", "2026-09-16", rows=1)]],
        None),
    "a compaction's commit, which carries the days' lineage": (
        [[{"commitInfo": {"userMetadata": json.dumps({"upkeep": "compacted 2026-09", "days": json.loads(
            TWO_DAYS[0]["commitInfo"]["userMetadata"])["days"]})}}] + TWO_DAYS[1:]], None),
    "a load of a file that has changed since": ([[loaded(sha256="0" * 64)] + LOAD[1:]], None),
    "a lineage without the id range": ([[{"commitInfo": {"userMetadata": json.dumps(
        {"day": "2026-09-15", "sha256": hashlib.sha256(LINES).hexdigest(), "rows_written": 2})}}] + LOAD[1:]], None),
}
