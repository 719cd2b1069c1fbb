"""Put the day a run loads (or every day of a range of runs) back as it was at an earlier table version, in one commit.

    python restore_day.py 2026-09-16 --version 29              # day 2026-09-15 as it was at version 29
    python restore_day.py 2026-09-02 2026-10-01 --version 29   # September's 30 days, in one commit
    python restore_day.py 2026-09-02 2026-10-01 --version 29 --dry-run   # each day's rows now and then

Run dates, as in every script: RUN_DATE stands for the day it loads (D-1); history.py shows the
versions. Delta's time travel reads the days at version N, and one replaceWhere over those days
writes them back: other days are untouched, and a day that had no rows at version N is removed.
The commit's user metadata says what it was (`restore_day: 2026-09-15 from version 29`); history.py
shows it. A restore that loses a write conflict is tried again (retry.py). A column the table gained
after version N (docs/new_columns.md) stays, null on the restored days, and the line says why: Delta
cannot drop a column for some days only (`...; channel is null on 2026-09-25: version 29 had no such ...`).
Refused in one line, exit 1, nothing written: a version the table does not have, one whose data
files VACUUM has removed (the line says which versions can still be read), or one committed before the
undo window upkeep.py set on the table (the line says from which version on it can go back, as
history.py's last line does).
"""
import argparse
import datetime as dt

from delta_session import TABLE, delta_spark, history_frame, orders_table, table_at_version, table_version
from shoptoolkit.run_args import (ToolkitError, add_root, add_verbose, check_range, day_loaded_by, parse_date,
                                  run_dates, run_main)
from shoptoolkit.storage import listed_file, table_path
from shoptoolkit.table import (BEYOND_WINDOW, PARTITION_COLUMN, days_label, restore_note, shown_window, table_window,
                               window_start)
from shoptoolkit.writing import error_class, print_now, retrying

def days_predicate(first_day, last_day) -> str:
    """The replaceWhere of the days: one day, or the range."""
    if first_day == last_day:
        return f"{PARTITION_COLUMN} = DATE'{first_day}'"
    return f"{PARTITION_COLUMN} >= DATE'{first_day}' AND {PARTITION_COLUMN} <= DATE'{last_day}'"


def missing_files(spark, version: int) -> tuple:
    """(data files of version that are gone, how many it has): Delta's log still names the files
    VACUUM removed, so the version's file list is compared with the folder (or the bucket)."""
    files = [listed_file(uri) for uri in table_at_version(spark, version).inputFiles()]
    return [path for path in files if not path.exists()], len(files)


def readable_from(spark, newest: int, after: int) -> int:
    """The oldest version of the unbroken run of readable versions that ends at newest, looking no
    further back than after + 1 (older versions may be readable again: their files were never rewritten)."""
    oldest = newest
    while oldest - 1 > after and readable(spark, oldest - 1):
        oldest -= 1
    return oldest


def readable(spark, version: int) -> bool:
    """Delta time travels to version, and VACUUM has left all its files."""
    try:
        return not missing_files(spark, version)[0]
    except Exception as error:
        if not error_class(error).startswith(BEYOND_WINDOW):
            raise
        return False


def beyond_window(spark, version: int) -> ToolkitError:
    """The refusal of a version committed before the table's undo window (Delta's own refusal)."""
    window = table_window(spark)
    start, since = window_start(spark, window, dt.datetime.now(dt.timezone.utc))
    return ToolkitError(f"version {version} is older than {TABLE}'s undo window of {shown_window(window)}: "
                        f"restore_day.py can go back to version {start} ({since:%Y-%m-%d %H:%M} UTC) or later")


def check_version(spark, version: int) -> None:
    """Refuse a version the table does not have, or one VACUUM has made unreadable; in one line."""
    orders_table(spark)  # a clear error when there is no table
    from pyspark.sql import functions as F
    oldest, newest = history_frame(spark).agg(F.min("version"), F.max("version")).first()
    if not oldest <= version <= newest:
        raise ToolkitError(f"version {version} does not exist: {TABLE} has versions {oldest} to {newest} "
                           f"(python history.py lists them)")
    try:
        gone, count = missing_files(spark, version)
    except Exception as error:
        if not error_class(error).startswith(BEYOND_WINDOW) or not table_window(spark):
            raise
        raise beyond_window(spark, version) from None
    if gone:
        first = readable_from(spark, newest, version)
        raise ToolkitError(f"version {version} cannot be read: VACUUM removed {len(gone)} of its {count} "
                           f"data files; the oldest version that can still be read after it is {first} "
                           f"(versions {first} to {newest})")


def rows_per_day(frame, first_day, last_day) -> dict:
    """{day: rows} of frame for every day from first_day to last_day, 0 for a day with no row."""
    counts = dict(frame.where(days_predicate(first_day, last_day)).groupBy(PARTITION_COLUMN).count().collect())
    return {day: counts.get(day, 0) for day in run_dates(first_day, last_day)}


def restore_days(spark, first_day, last_day, version: int, show=print_now) -> str:
    """Replace the days from first_day to last_day with their rows at version; return the line to print."""
    check_version(spark, version)
    label = days_label(first_day, last_day)
    then = table_at_version(spark, version).where(days_predicate(first_day, last_day))
    note = restore_note(first_day, last_day, version)

    def write():
        before = sum(rows_per_day(orders_table(spark), first_day, last_day).values())
        (then.write.format("delta").mode("overwrite")
         .option("replaceWhere", days_predicate(first_day, last_day))
         .option("userMetadata", note)
         .save(str(table_path())))
        return before
    before = retrying(write, f"restore {label}", show)
    after = sum(rows_per_day(orders_table(spark), first_day, last_day).values())
    return (f"restored {label} from version {version} ({before} rows -> {after}); "
            f"{TABLE} has {orders_table(spark).count()}, version {table_version(spark)}"
            f"{nulled(columns_since(spark, then), label, version)}")


def columns_since(spark, then) -> list:
    """The table's columns that the frame of a version (then) lacks: a new column added since (docs/new_columns.md)."""
    return [name for name in orders_table(spark).columns if name not in then.columns]


def nulled(columns: list, label: str, version: int) -> str:
    """What a restore says of the table's columns its version did not have: the table keeps them, its days hold null."""
    if not columns:
        return ""
    named = ", ".join(columns)
    return (f"; {named} {'is' if len(columns) == 1 else 'are'} null on {label}: version {version} had no such "
            f"column{'s' if len(columns) > 1 else ''}, and Delta cannot drop a column for some days only")


def dry_run(spark, first_day, last_day, version: int) -> list:
    """A line per day with its rows now and at version, and a closing line; nothing is written."""
    check_version(spark, version)
    now = rows_per_day(orders_table(spark), first_day, last_day)
    then = rows_per_day(table_at_version(spark, version), first_day, last_day)
    lines = [f"{day}: {now[day]} rows now, {then[day]} at version {version}" for day in now]
    lines.append(f"dry run: would restore {len(now)} day{'s' if len(now) > 1 else ''} from version {version} "
                 f"({sum(now.values())} rows -> {sum(then.values())}); nothing written")
    return lines


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=parse_date, help="run date (YYYY-MM-DD): restores the day it loads")
    parser.add_argument("last", type=parse_date, nargs="?",
                        help="last run date of a range (YYYY-MM-DD), included")
    parser.add_argument("--version", type=int, required=True, help="the table version to go back to")
    parser.add_argument("--dry-run", action="store_true", help="list each day's rows now and then; write nothing")
    parser.add_argument("--allow-long", action="store_true", help="allow more than a year of runs")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    args.last = args.last or args.first
    check_range(parser, args.first, args.last, args.allow_long)
    if args.version < 0:
        parser.error(f"--version must be 0 or more, not {args.version}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)  # a bad date is a usage error before Spark starts
    first_day, last_day = day_loaded_by(args.first), day_loaded_by(args.last)

    def body():
        spark = delta_spark("restore_day", commits=1)
        if args.dry_run:
            print("\n".join(dry_run(spark, first_day, last_day, args.version)))
        else:
            print(restore_days(spark, first_day, last_day, args.version))
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
