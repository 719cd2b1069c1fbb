"""Load and check every run date from FIRST to LAST in one Spark session.

    python backfill.py 2026-09-02 2026-10-01     # the 30 runs that load September
    python backfill.py 2026-09-02 2026-10-01 --parallel 4    # 4 runs at once, see docs/parallel.md
    python backfill.py 2026-09-02 2026-10-01 --days-per-commit all   # September in one Delta commit

A line per run as it goes, with its place and its time (`12/365 run 2026-09-13 loaded ... (1.02 s)`); the
closing line ends with the whole backfill's time, Spark's start included. A failed run (no file, bad data,
a failed check) is reported and the backfill goes on, as an orchestrator's does; the closing line counts
and names the failed run dates, and the exit code is 1 if any failed (--on-new-column: docs/new_columns.md).
With --days-per-commit N the days go to the table N at a time, each N in one commit checked in one query
(commit_days.py); a run's line then ends with its commit, each commit has a line of its own, and the
closing line counts the commits. Rerunning it, or starting over after a stop, ends with the same table.
    python backfill.py 2026-09-02 2026-10-01 --reprocess changed   # only days whose data is not right
    python backfill.py 2026-09-02 2026-10-01 --reprocess failed --dry-run   # what it would run, and why

--reprocess chooses the run dates from the state of the day each loads (see reprocess.py); the closing line
counts the skipped ones. --dry-run prints the choice and writes nothing. On s3a://, runs at once are refused
when the store would let two writers commit one version (storage/commit_safety.py).
"""
import argparse
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from delta_session import TABLE, delta_spark, orders_table, table_exists
from shoptoolkit.run_args import (add_new_column, add_root, add_verbose, check_range, day_loaded_by, one_line,
                                  parse_date, parse_days_per_commit, run_dates, run_main)
from shoptoolkit.storage import refuse_writers_at_once
from shoptoolkit.table import PARTITION_COLUMN
from shoptoolkit.truth import REPROCESS, dates_to_run, dry_run
from shoptoolkit.writing import load_days
from check_day import check_day
from load_day import load_day, load_retrying


def run_one(spark, run_date, load=load_day) -> tuple:
    """Load and check one run date; return (ok, line to print)."""
    started = time.perf_counter()
    try:
        loaded = load(spark, run_date)
        ok, checked = check_day(spark, run_date)
        line = f"{loaded}; {checked}"
    except Exception as error:  # one failed run must not stop the backfill
        ok, line = False, f"run {run_date} failed: {one_line(error)}"
    return ok, f"{line} ({time.perf_counter() - started:.2f} s)"


def table_summary(spark) -> str:
    if not table_exists(spark):
        return f"{TABLE} does not exist"
    from pyspark.sql import functions as F
    days, orders = orders_table(spark).agg(F.countDistinct(PARTITION_COLUMN), F.count("*")).first()
    return f"{TABLE} has {days} days, {orders} orders"


def backfill(spark, first, last, show=print, reprocess="all", workers=1, planned=None,
             days_per_commit=1) -> tuple:
    """Run the dates from first to last that reprocess chooses (all: every one), workers at once;
    show each run's line; return (failed dates, closing line). planned(n), if given, hears how
    many runs there will be before the first one starts. days_per_commit other than 1 loads the
    days in commits of up to that many days each (0: all in one commit), see commit_days.py."""
    table_exists(spark)  # a damaged table stops the backfill in one line, before its first run
    dates = dates_to_run(spark, first, last, reprocess)
    if planned is not None:
        planned(len(dates))
    skipped = len(run_dates(first, last)) - len(dates)
    made = []
    if days_per_commit == 1:
        units = [partial(one_run, spark, run_date) for run_date in dates]
    else:
        size = days_per_commit or max(len(dates), 1)
        groups = [dates[at:at + size] for at in range(0, len(dates), size)]
        units = [partial(one_commit, spark, group, f"commit {number} of {len(groups)}", made)
                 for number, group in enumerate(groups, start=1)]
    failed = run_units(spark, units, workers, show)
    commits = f" in {len(made)} commit{'' if len(made) == 1 else 's'}" if days_per_commit != 1 else ""
    named = f" ({', '.join(map(str, failed))})" if failed else ""
    skips = f", {skipped} skipped" if skipped else ""
    return failed, f"ran {len(dates)} runs{commits}, {len(failed)} failed{named}{skips}; {table_summary(spark)}"


def one_run(spark, run_date, show) -> list:
    """A unit of run_units: one run, retrying lost write conflicts (another writer may commit meanwhile)."""
    ok, line = run_one(spark, run_date, partial(load_retrying, show=show))
    return [(run_date, ok, line)]


def one_commit(spark, group, what: str, made: list, show) -> list:
    """A unit of run_units: the days of group's runs in one commit (load_days); its runs' lines, then
    the commit's own line (run date None). A commit that landed is added to made."""
    started = time.perf_counter()
    days, results = load_days(spark, group, what, show)
    if days:
        made.append(what)
    written = f"{days} day{'' if days == 1 else 's'} in one commit" if days else "nothing written"
    return results + [(None, True, f"{what}: {written}, {sum(ok for _, ok, _ in results)} of {len(group)} "
                                   f"runs ok ({time.perf_counter() - started:.2f} s)")]


def run_units(spark, units, workers: int, show) -> list:
    """Call each unit(show) (one run, or one commit of runs), workers at once, and show the lines it
    returns; return the failed run dates. Lines come in the order units end. While there is no table,
    units go one at a time until one creates it (first writes would race)."""
    failed, lock = [], threading.Lock()

    def safe_show(line):
        with lock:
            show(line)

    def one(unit):
        results = unit(safe_show)
        with lock:
            for run_date, ok, line in results:
                show(line)
                failed.extend([] if ok else [run_date])

    waiting = list(units)
    while waiting and (workers == 1 or not table_exists(spark)):
        one(waiting.pop(0))
    if waiting:
        refuse_writers_at_once(spark)
        orders_table(spark)  # register the table once, before the threads read it
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one, waiting))
    return sorted(failed)


# A run's line: from run_one, ending in its time; from load_days, ending in its commit. A retry's has neither.
RUN_LINE = re.compile(r"run .* \((\d+\.\d\d s|.*commit \d+ of \d+.*)\)")


class Progress:
    """main's show: a run's line gets its place in front (3/30); other lines are printed as they are."""

    def __init__(self):
        self.done, self.total = 0, 0

    def planned(self, total: int) -> None:
        self.total = total

    def __call__(self, line: str) -> None:
        if RUN_LINE.fullmatch(line):
            self.done += 1
            line = f"{self.done}/{self.total} {line}"
        print(line, flush=True)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=parse_date, help="first run date (YYYY-MM-DD)")
    parser.add_argument("last", type=parse_date, help="last run date (YYYY-MM-DD), included")
    parser.add_argument("--allow-long", action="store_true", help="allow more than a year of runs")
    parser.add_argument("--reprocess", choices=REPROCESS, default="all",
                        help="which run dates to run, from the state of their day (default: all)")
    parser.add_argument("--dry-run", action="store_true", help="print what would run and why; write nothing")
    parser.add_argument("--parallel", type=int, metavar="N", default=1,
                        help="N runs (or commits) at once; one that loses a write conflict is retried")
    parser.add_argument("--days-per-commit", type=parse_days_per_commit, metavar="N", default=1,
                        help="load the days in Delta commits of up to N days, checked in one query "
                             "each (0 or all: one commit; default 1, a commit a run)")
    add_verbose(parser)
    add_root(parser)
    add_new_column(parser)
    args = parser.parse_args(argv)
    check_range(parser, args.first, args.last, args.allow_long)
    if args.parallel is not None and args.parallel < 1:
        parser.error(f"--parallel must be 1 or more, not {args.parallel}")
    return args


def commit_count(first, last, per_commit: int = 1) -> int:
    """How many commits a backfill writes: one a run, or one per per_commit runs (0: one in all)."""
    runs = len(run_dates(first, last))
    return runs if per_commit == 1 else -(-runs // (per_commit or runs))


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()

    def body():
        spark = delta_spark("backfill", commits=commit_count(args.first, args.last, args.days_per_commit),
                            days=[day_loaded_by(run) for run in run_dates(args.first, args.last)])
        if args.dry_run:
            print("\n".join(dry_run(spark, args.first, args.last, args.reprocess)))
            return 0
        progress = Progress()
        failed, closing = backfill(spark, args.first, args.last, show=progress, reprocess=args.reprocess,
                                   workers=args.parallel, planned=progress.planned,
                                   days_per_commit=args.days_per_commit)
        print(f"{closing} ({time.perf_counter() - started:.1f} s)")
        return 1 if failed else 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
