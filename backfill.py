"""Load and check every run date from FIRST to LAST in one Spark session.

    python backfill.py 2026-09-02 2026-10-01     # the 30 runs that load September
    python backfill.py 2026-09-02 2026-10-01 --parallel 4    # 4 runs at once, see docs/parallel.md

A line per run as it goes, with its place and its time (`12/365 run 2026-09-13 loaded ... (1.02 s)`);
the closing line ends with the whole backfill's time, Spark's start included. A failed run (no file, bad data, a failed check) is
reported and the backfill goes on with the next date, as an orchestrator's backfill does; the
closing line counts and names the failed run dates, and the exit code is 1 if any failed.
Rerunning it, or starting over after a stop, ends with the same table.

    python backfill.py 2026-09-02 2026-10-01 --reprocess changed   # only days whose data is not right
    python backfill.py 2026-09-02 2026-10-01 --reprocess failed --dry-run   # what it would run, and why

--reprocess chooses the run dates from the state of the day each loads (see reprocess.py); the
closing line counts the skipped ones. --dry-run prints the choice and writes nothing.
"""
import argparse
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from delta_session import TABLE, delta_spark, orders_table, table_exists
from errors import one_line, run_main
from run_args import add_root, add_verbose, check_range, parse_date, run_dates
from spark_jvm import LASTING_RUNS
from table_schema import PARTITION_COLUMN
from check_day import check_day
from load_day import load_day, load_retrying
from reprocess import REPROCESS, dates_to_run, dry_run


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
    days, orders = (orders_table(spark)
                    .agg(F.countDistinct(PARTITION_COLUMN), F.count("*")).first())
    return f"{TABLE} has {days} days, {orders} orders"


def backfill(spark, first, last, show=print, reprocess="all", workers=1, planned=None) -> tuple:
    """Run the dates from first to last that reprocess chooses (all: every one), workers at once;
    show each run's line; return (failed dates, closing line). planned(n), if given, hears how
    many runs there will be before the first one starts."""
    table_exists(spark)  # a damaged table stops the backfill in one line, before its first run
    dates = dates_to_run(spark, first, last, reprocess)
    if planned is not None:
        planned(len(dates))
    skipped = len(run_dates(first, last)) - len(dates)
    if workers > 1:
        failed = run_parallel(spark, dates, workers, show)
    else:
        failed = run_in_order(spark, dates, show)
    named = f" ({', '.join(map(str, failed))})" if failed else ""
    skips = f", {skipped} skipped" if skipped else ""
    return failed, f"ran {len(dates)} runs, {len(failed)} failed{named}{skips}; {table_summary(spark)}"


def run_in_order(spark, dates, show) -> list:
    """Run dates one after the other, retrying lost write conflicts (another process may write
    the table too); return the failed ones."""
    failed = []
    for run_date in dates:
        ok, line = run_one(spark, run_date, partial(load_retrying, show=show))
        show(line)
        if not ok:
            failed.append(run_date)
    return failed


def run_parallel(spark, dates, workers: int, show, attempts=None) -> list:
    """Run dates workers at once in this session, retrying lost write conflicts; return the failed ones.

    Lines come in the order runs end. While there is no table, runs go one at a time until one
    creates it (first writes would race)."""
    failed, lock = [], threading.Lock()

    def one(run_date):
        ok, line = run_one(spark, run_date, partial(load_retrying, show=safe_show, attempts=attempts))
        safe_show(line)
        if not ok:
            with lock:
                failed.append(run_date)

    def safe_show(line):
        with lock:
            show(line)

    waiting = list(dates)
    while waiting and not table_exists(spark):
        one(waiting.pop(0))
    if waiting:
        orders_table(spark)  # register the table once, before the threads read it
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(one, waiting))
    return sorted(failed)


RUN_LINE = re.compile(r".* \(\d+\.\d\d s\)")  # a run's line from run_one; a retry's line has no (N.NN s)


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
                        help="N runs at once; a run that loses a write conflict is retried")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    check_range(parser, args.first, args.last, args.allow_long)
    if args.parallel is not None and args.parallel < 1:
        parser.error(f"--parallel must be 1 or more, not {args.parallel}")
    return args


def lasting(first, last) -> bool:
    """A backfill of LASTING_RUNS run dates or more lasts long enough for Java's full JIT to pay back."""
    return len(run_dates(first, last)) >= LASTING_RUNS


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()

    def body():
        spark = delta_spark("backfill", lasting=lasting(args.first, args.last))
        if args.dry_run:
            print("\n".join(dry_run(spark, args.first, args.last, args.reprocess)))
            return 0
        progress = Progress()
        failed, closing = backfill(spark, args.first, args.last, show=progress, reprocess=args.reprocess,
                                   workers=args.parallel, planned=progress.planned)
        print(f"{closing} ({time.perf_counter() - started:.1f} s)")
        return 1 if failed else 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
