"""Show orders_daily's latest commits, newest first: what each wrote and what it loaded.

    python history.py              # the 10 newest commits
    python history.py --limit 3

A line per commit: `version N | operation | predicate | rows_written | run RUN_DATE | file SHA256[:12]`,
e.g. `version 30 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file 5a1c0e9b2f47`.
A load that gave the table a new column (docs/new_columns.md) says so last, from its lineage's columns_added,
e.g. `version 49 | ... | run 2026-09-21 | file c6a3a57e9457 | adds column channel STRING`.
A commit of another writer ends with its user metadata instead of the load's run and file, e.g.
restore_day.py's `version 31 | WRITE | order_date = DATE'2026-09-15' | 3 | restore_day: 2026-09-15 from version 29`.
A commit of many days (backfill.py --days-per-commit) names them as a range and a count, e.g.
`version 0 | WRITE | order_date IN 30 days 2026-09-01 .. 2026-09-30 | 130 | runs 2026-09-02 .. 2026-10-01 | 30 files`;
--json shows each day's lineage. The version is what restore_day.py --version takes. upkeep.py's
compaction of a month says so (`upkeep: compacted 2026-09, the lineage of 30 days kept`); once upkeep.py
has set the table's undo window, a last line says from which version restore_day.py can surely go back.
"""
import argparse
import datetime as dt
import json
import re

from delta_session import delta_spark, history_frame, orders_table
from shoptoolkit.run_args import add_root, add_verbose, run_main
from shoptoolkit.table import PARTITION_COLUMN, shown_window, table_window, window_start


def table_history(spark, limit: int = 10) -> list:
    """The newest commits first, each a dict with the commit's operation, predicate and lineage."""
    orders_table(spark)  # a clear error when there is no table
    commits = history_frame(spark, limit).collect()
    return [commit_summary(commit) for commit in commits]


def commit_summary(commit) -> dict:
    params = commit.operationParameters or {}
    metrics = commit.operationMetrics or {}
    lineage, note = user_metadata(commit.userMetadata or "")
    return {"version": commit.version, "timestamp": str(commit.timestamp),
            "operation": commit.operation, "predicate": clean_predicate(params.get("predicate", "")),
            "rows_written": rows_written(metrics), "lineage": lineage, "note": note}


def rows_written(metrics: dict) -> int:
    """The rows the commit wrote anew. A replaceWhere that must rewrite a file shared with other days (a
    compacted month on the unpartitioned table) copies their rows too: Delta counts those in numOutputRows
    and again in numCopiedRows. Another writer's UPDATE wrote its numUpdatedRows (its copies are not
    counted in any output), a DELETE wrote none."""
    if "numOutputRows" in metrics:
        return int(metrics["numOutputRows"]) - int(metrics.get("numCopiedRows", 0))
    return int(metrics.get("numUpdatedRows", 0))


def user_metadata(text: str) -> tuple:
    """(lineage, note): a load's lineage JSON as a dict, or other user metadata (restore_day's) as text."""
    try:
        found = json.loads(text) if text else {}
    except ValueError:
        return {}, text
    return (found, "") if isinstance(found, dict) else ({}, text)


def clean_predicate(predicate: str) -> str:
    """Delta stores some predicates as a JSON list of Spark's expressions (DELETE, UPDATE), whose columns
    carry the plan's ids (`order_id#4264L`), and replaceWhere's as plain text."""
    if predicate.startswith("["):
        predicate = re.sub(r"#\d+L?\b", "", " AND ".join(json.loads(predicate)))
    return predicate or "-"


def history_line(entry: dict) -> str:
    """One line a commit; a commit of many days (load_days) names them as a range and a count."""
    days = entry["lineage"].get("days") if isinstance(entry["lineage"].get("days"), list) else None
    predicate = entry["predicate"]
    if days:
        predicate = f"{PARTITION_COLUMN} IN {len(days)} days {days[0]['day']} .. {days[-1]['day']}"
    fields = [f"version {entry['version']}", entry["operation"], predicate, str(entry["rows_written"])]
    lineage = entry["lineage"]
    if days and lineage.get("upkeep"):
        fields.append(f"upkeep: {lineage['upkeep']}, the lineage of {len(days)} days kept")
    elif days:
        fields += [f"runs {days[0]['run_date']} .. {days[-1]['run_date']}", f"{len(days)} files"]
    elif lineage:
        fields += [f"run {lineage.get('run_date', '?')}", f"file {lineage.get('sha256', '?')[:12]}"]
    elif entry["note"]:
        fields.append(entry["note"])
    added = {} if lineage.get("upkeep") else columns_added(days or [lineage])
    if added:
        fields.append(f"adds column{'s' if len(added) > 1 else ''} "
                      f"{', '.join(f'{name} {kind}' for name, kind in added.items())}")
    return " | ".join(fields)


def columns_added(loads: list) -> dict:
    """{name: type} of the columns the commit's loads (their lineage) gave the table: the schema's change
    (a compaction carries its days' lineage, but changes no schema: not asked)."""
    return {name: kind for load in loads for name, kind in (load.get("columns_added") or {}).items()}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=10, help="how many commits (default 10)")
    parser.add_argument("--json", action="store_true", help="everything, as one JSON object a line")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    if args.limit < 1:
        parser.error(f"--limit must be 1 or more, not {args.limit}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        spark = delta_spark("history", commits=0)
        for entry in table_history(spark, args.limit):
            print(json.dumps(entry, sort_keys=True) if args.json else history_line(entry))
        window = table_window(spark)
        if window and not args.json:
            version, since = window_start(spark, window, dt.datetime.now(dt.timezone.utc))
            print(f"undo window {shown_window(window)}: restore_day.py can go back to version {version} "
                  f"({since:%Y-%m-%d %H:%M} UTC) or later")
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
