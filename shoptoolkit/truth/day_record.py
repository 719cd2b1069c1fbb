"""A day checked from its load's own record in the Delta log: no data file and no Spark query is read.

    from shoptoolkit.truth.day_record import recorded_checks
    recorded_checks(["2026-09-15"])   # {date(2026, 9, 15): (True, "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing")}

The log's commits are read as JSON, newest first, back to the commit whose lineage (load_lineage.py) is the
day's latest load. That load proves the day when:
  - the landing file's sha256 is still the one it recorded;
  - no later commit, of any Delta writer, added a file whose order_date range takes in the day (or without
    statistics), nor removed a file of the day (a DELETE, UPDATE, deletion vector, replaceWhere, compaction);
  - the day's files of that commit have their statistics, no deletion vector, and together the rows
    (numRecords) and the order id range (min/max) the load recorded. For load_day's commit of one day
    they are the files whose order_date is the day alone (its replaceWhere removed the day from every
    file it copied). A commit of several days (load_days) writes a file a run of consecutive days: the
    day's files are those whose order_date range takes in the day, with every file whose range meets
    theirs, and so on; their rows and id range must be those the commit recorded for all the days they
    take in. Per-day rows then come from the lineage and Delta's statistics together. A compaction's
    commit carries its days' lineage but loaded no file: it proves nothing.
Anything else (a gap in the log, a lineage older than the id range, a restore, a later commit that gave
the table a new column: till/new_columns.py) proves nothing, and the caller compares the rows with the
file; so it can only answer `ok`, with the line the compare prints (a new column the file lacks named).
"""
import json
from functools import lru_cache

from shoptoolkit.dates import as_date
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.table.delta_log_check import COMMIT, commit_actions
from shoptoolkit.table.load_lineage import commit_loads, restored_by, widens
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.in_python import fingerprint
from shoptoolkit.truth.verdict import day_verdict, noted

def file_sha256(day) -> str:
    """The sha256 of day's landing file as a load records it (all its bytes), '' when there is none."""
    path = day_file(day)
    return fingerprint(path)[1] if path.exists() else ""


def recorded_checks(days, shas: dict = None, commits=None) -> dict:
    """{day: (True, check line)} for the days of days that their load's record proves; shas: the files'
    sha256 ('' for no file) when the caller has them; commits: the log's (CommitsOnce) when the caller
    walks them too. The other days are left out."""
    shas = shas or {}
    open_days = {as_date(day): shas[day] if day in shas else file_sha256(day) for day in days}
    open_days = {day: sha for day, sha in open_days.items() if sha}
    proven, removed, widened = {}, set(), False
    if not open_days:
        return proven
    for _, actions in (newest_commits(table_path() / "_delta_log") if commits is None else commits):
        spans = [(action["add"], day_span(action["add"])) for action in actions if "add" in action]
        loads, kind, restored = commit_lineage(actions)
        for day in list(open_days):
            if day in loads:
                verdict = proof(day, loads, kind, spans, removed, open_days.pop(day))
                proven.update({day: verdict} if verdict and not widened else {})
            elif restored(day) or any(takes_in(span, day) for _, span in spans):
                del open_days[day]
        removed |= {action["remove"]["path"] for action in actions if "remove" in action}
        widened = widened or any(widens(action["metaData"]) for action in actions if "metaData" in action)
        if not open_days:  # before the walk reads one more commit
            break
    return proven


def newest_commits(log):
    """(version, actions) of each commit, newest first, while the log holds them without a gap and they read
    as JSON (a damaged log is left to Spark's read, which refuses it in one line: delta_log_check.py)."""
    listed = {int(path.name[:20]): path for path in log.glob("*.json") if COMMIT.fullmatch(path.name)}
    versions = sorted(listed, reverse=True)
    for place, version in enumerate(versions):
        if version != versions[0] - place:
            return
        try:  # a commit gone since the listing (an expired log) is an OSError too
            actions = commit_actions(listed[version])  # read once a process (delta_log_check.py)
        except (OSError, ValueError):
            return
        yield version, actions


class CommitsOnce:
    """The log's commits, newest first (newest_commits), each read once however many passes walk them:
    the record's proof and the days' lineage share one read of the log."""

    def __init__(self, log):
        self.log, self.reading, self.read = log, None, []

    def __iter__(self):
        place = 0
        while True:
            if place == len(self.read):
                self.reading = self.reading or newest_commits(self.log)
                commit = next(self.reading, None)
                if commit is None:
                    return
                self.read.append(commit)
            yield self.read[place]
            place += 1


def user_metadata(actions):
    """The commit's user metadata (the toolkit's lineage or note), None when its writer left none."""
    return next((action["commitInfo"].get("userMetadata") for action in actions if "commitInfo" in action), None)


def commit_lineage(actions) -> tuple:
    """({day: lineage entry} of the commit's loads; its kind: "day" for a load of one day, "days" for
    load_days' commit of several, "" for any other (a compaction's); and whether a restore_day commit
    names a day: even one that wrote nothing for it ends the proof)."""
    text = user_metadata(actions)
    entries, restore = commit_loads(text or ""), restored_by(text or "")
    try:
        found = json.loads(text)
    except (TypeError, ValueError):
        found = None
    kind = "" if not entries or not isinstance(found, dict) else (
        "days" if set(found) == {"days"} else "day" if len(entries) == 1 and "days" not in found else "")
    return ({as_date(entry["day"]): entry for entry in entries}, kind,
            lambda day: bool(restore) and restore[0] <= day <= restore[1])


def day_span(add):
    """(first, last) order_date of an added file, from its partition value or its statistics; None when unknown."""
    value = (add.get("partitionValues") or {}).get(PARTITION_COLUMN)
    if value:
        return as_date(value), as_date(value)
    stats = json.loads(add.get("stats") or "{}")
    low = stats.get("minValues", {}).get(PARTITION_COLUMN)
    high = stats.get("maxValues", {}).get(PARTITION_COLUMN)
    return (as_date(low[:10]), as_date(high[:10])) if low and high else None


def takes_in(span, day) -> bool:
    """Whether an added file's day_span may hold rows of day (unknown: it may)."""
    return span is None or span[0] <= day <= span[1]


def proof(day, loads: dict, kind: str, spans: list, removed: set, sha_now: str):
    """(True, line) when the load's commit (loads: its lineage by day, kind: commit_lineage's; spans: its
    added files with their day_span) proves day as the module's docstring says, else None."""
    entry = loads[day]
    if entry.get("sha256") != sha_now:
        return None
    own, entries = day_files(day, loads, kind, spans) or (None, None)
    if own is None:
        return None
    if any(add["path"] in removed or add.get("deletionVector") for add in own):
        return None
    if any("lowest" not in one or "rows_written" not in one for one in entries):
        return None
    lows = [one["lowest"] for one in entries if one["rows_written"]]
    highs = [one["highest"] for one in entries if one["rows_written"]]
    recorded = (sum(one["rows_written"] for one in entries), min(lows, default=None), max(highs, default=None))
    if files_counted(own) != recorded:
        return None
    return noted(day_verdict(day, entry["rows_written"], entry["rows_written"], {}), entry.get("columns_absent"))


def day_files(day, loads: dict, kind: str, spans: list):
    """(the commit's added files that hold day's rows, the lineage entries of every day they take in), or
    None when the commit cannot say (a file without its day range, a commit that is not a load)."""
    if kind == "day":
        shared = [span for _, span in spans if span != (day, day) and takes_in(span, day)]
        return None if None in shared else ([add for add, span in spans if span == (day, day)], [loads[day]])
    if kind != "days" or any(span is None for _, span in spans):
        return None
    for first, last, files in merged_spans(tuple((add["path"], span) for add, span in spans)):
        if first <= day <= last:
            adds = [add for add, _ in spans if add["path"] in files]
            return adds, [loads[one] for one in sorted(loads) if first <= one <= last]
    return [], [loads[day]]


@lru_cache(maxsize=8)
def merged_spans(spans: tuple) -> list:
    """[(first day, last day, {paths})]: files (path, day_span) whose day ranges share a day, together."""
    merged = []
    for path, (first, last) in sorted(spans, key=lambda one: one[1]):
        if merged and first <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(last, merged[-1][1]), merged[-1][2] | {path})
        else:
            merged.append((first, last, {path}))
    return merged


def files_counted(adds) -> tuple:
    """(rows, lowest order id, highest) of files from their statistics; None when one lacks them."""
    rows, ids = 0, []
    for add in adds:
        stats = json.loads(add.get("stats") or "{}")
        if "numRecords" not in stats:
            return None
        rows += stats["numRecords"]
        if stats["numRecords"]:
            low, high = stats.get("minValues", {}).get("order_id"), stats.get("maxValues", {}).get("order_id")
            if low is None or high is None:
                return None
            ids += [low, high]
    return rows, min(ids, default=None), max(ids, default=None)
