"""Tidy orders_daily: compact each closed month's small days into few files, then VACUUM within the undo window.

    python upkeep.py                      # the months before this one; then VACUUM, keeping 35 days of undo
    python upkeep.py --dry-run            # what it would do, month by month; nothing written
    python upkeep.py --window 60          # set the table's undo window to 60 days (once: it stays set)
    python upkeep.py --today 2026-11-01 --no-vacuum

A month is closed once `--today` (default: the real date) is in a later month. Its days of small
files are rewritten together, one commit a month (shoptoolkit/writing/compaction.py): Delta's dataChange=false,
each day's lineage carried along, so history.py, check_month.py's calendar and --reprocess answer as
before, and a later load_day.py of one day still replaces that day only. A load that lands meanwhile
makes the month's commit lose a write conflict: nothing of it lands, and it is worked out again from
the newest version (retry.py), a line a retry. Then the table gets the undo window W
(shoptoolkit/table/undo_window.py: its deleted files kept W, its log W + 30 days) and VACUUM deletes only what
no version of the last W needs, so restore_day.py can go back to any of them. Delta's retention check
stays on. A big day (32 MB of files or more) keeps files of its own; a partitioned table gets a file a day.
"""
import argparse
import datetime as dt

from delta_session import TABLE, delta_spark, orders_table, table_version
from shoptoolkit.run_args import add_root, add_verbose, parse_date, run_main
from shoptoolkit.storage import table_path
from shoptoolkit.table import DEFAULT_WINDOW, set_window, shown_window, table_window, window_start
from shoptoolkit.writing import compact_month, month_plans, print_now, retrying


def compacted(spark, month: dt.date, before: dt.date, show=print_now) -> str:
    """Compact month (worked out again at each attempt); the line to print."""
    def attempt():
        plan = next((found for found in month_plans(spark, before) if found.month == month), None)
        if plan is None or not plan.worth_it():
            return f"{month:%Y-%m}: nothing to compact now"
        compact_month(spark, plan)
        return f"compacted {plan.line()}; version {table_version(spark)}"
    return retrying(attempt, f"compact {month:%Y-%m}", show)


def data_files() -> int:
    """The table's data files on disk (or in the bucket), those only old versions need included (not the
    log's checkpoints)."""
    table = table_path()
    return sum(1 for path in table.rglob("*.parquet") if "_delta_log" not in path.relative_to(table).parts)


def vacuumed(spark, window: dt.timedelta, now: dt.datetime) -> str:
    before = data_files()
    spark.sql(f"VACUUM delta.`{table_path()}`")  # the table's own retention: the window
    version, since = window_start(spark, window, now)
    return (f"VACUUM deleted {before - data_files()} of {before} data files; undo window {shown_window(window)}: "
            f"restore_day.py can go back to version {version} ({since:%Y-%m-%d %H:%M} UTC) or later")


def upkeep(spark, today, window=None, dry_run=False, vacuum=True, now=None, show=print_now) -> list:
    """Compact the months that ended before today's, set the undo window, VACUUM; the lines to print.
    window: a timedelta to set, else the table's own (DEFAULT_WINDOW when it has none)."""
    orders_table(spark)  # a clear error when there is no table
    before = dt.date.fromisoformat(str(today)).replace(day=1)
    lines = []
    for plan in month_plans(spark, before):
        if not plan.worth_it():
            lines.append(f"{plan.month:%Y-%m}: {plan.files} file{'s' if plan.files > 1 else ''}, nothing to compact")
        elif dry_run:
            lines.append(f"would compact {plan.line()}")
        else:
            lines.append(compacted(spark, plan.month, before, show))
    window = window or table_window(spark) or DEFAULT_WINDOW
    if dry_run:
        return lines + [f"dry run: undo window {shown_window(window)}; VACUUM would delete the files replaced "
                        f"longer ago than that; nothing written (version {table_version(spark)})"]
    if set_window(spark, window):
        lines.append(f"{TABLE} keeps {shown_window(window)} of undo: deleted files {shown_window(window)}, "
                     f"its log {shown_window(window + dt.timedelta(days=30))}")
    if vacuum:
        lines.append(vacuumed(spark, window, now or dt.datetime.now(dt.timezone.utc)))
    return lines


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--today", type=parse_date, help="months before its month are compacted (default: the real date)")
    parser.add_argument("--window", type=int, metavar="DAYS",
                        help=f"the undo window to set, in days, 7 or more (default: the table's, else "
                             f"{DEFAULT_WINDOW.days})")
    parser.add_argument("--dry-run", action="store_true", help="say what it would do; write nothing")
    parser.add_argument("--no-vacuum", action="store_true", help="compact and set the window, but do not VACUUM")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    if args.window is not None and args.window < 7:
        parser.error(f"--window must be 7 days or more (Delta's own retention), not {args.window}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        today = args.today or dt.date.today()  # the one clock: here, never inside the upkeep
        window = dt.timedelta(days=args.window) if args.window else None
        spark = delta_spark("upkeep", commits=12)  # a commit a closed month, a year at most: a one-shot script
        print("\n".join(upkeep(spark, today, window, args.dry_run, not args.no_vacuum)))
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
