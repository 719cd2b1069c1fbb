"""Load and check every run date from FIRST to LAST in one Spark session.

    python backfill.py 2026-09-02 2026-10-01     # the 30 runs that load September
    python backfill.py 2026-09-02 2026-10-01 --parallel 4    # 4 runs at once, see docs/parallel.md

A line per run as it goes, with its time. A failed run (no file, bad data, a failed check) is
reported and the backfill goes on with the next date, as an orchestrator's backfill does; the
closing line counts and names the failed run dates, and the exit code is 1 if any failed.
Rerunning it, or starting over after a stop, ends with the same table.
"""
import argparse
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import partial

from delta_session import (TABLE, add_verbose, check_range, delta_spark, one_line, orders_table,
                           parse_date, run_dates, run_main, table_exists)
from delta_session import error_class, is_write_conflict
from check_day import check_day
from load_day import load_day


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
                    .agg(F.countDistinct("order_date"), F.count("*")).first())
    return f"{TABLE} has {days} days, {orders} orders"


def backfill(spark, first, last, show=print) -> tuple:
    """Run every date from first to last; show each run's line; return (failed dates, closing line)."""
    dates = run_dates(first, last)
    failed = []
    for run_date in dates:
        ok, line = run_one(spark, run_date)
        show(line)
        if not ok:
            failed.append(run_date)
    named = f" ({', '.join(map(str, failed))})" if failed else ""
    closing = f"ran {len(dates)} runs, {len(failed)} failed{named}; {table_summary(spark)}"
    return failed, closing


RETRY_ATTEMPTS = 8
RETRY_PAUSE = 1.0  # seconds before the first retry; doubled for each further one up to RETRY_MAX_PAUSE
RETRY_MAX_PAUSE = 30.0


def load_retrying(spark, run_date, show=print, attempts=RETRY_ATTEMPTS, pause=RETRY_PAUSE, load=load_day):
    """load(spark, run_date), tried again after a lost write conflict, at most attempts times in all.

    Only Delta's DELTA_CONCURRENT_APPEND conflicts are retried (the commit that lost changed nothing);
    any other error, or the last attempt's conflict, is raised. Each retry shows a line."""
    for attempt in range(1, attempts + 1):
        try:
            return load(spark, run_date)
        except Exception as error:
            if attempt == attempts or not is_write_conflict(error):
                raise
            wait = min(pause * 2 ** (attempt - 1), RETRY_MAX_PAUSE) * random.uniform(0.5, 1.5)
            show(f"run {run_date} lost a write conflict ({error_class(error)}); "
                 f"attempt {attempt + 1} of {attempts} in {wait:.1f} s")
            time.sleep(wait)


def backfill_parallel(spark, first, last, workers: int, show=print, attempts=RETRY_ATTEMPTS) -> tuple:
    """backfill() with workers runs at once in this session; the same lines, in the order runs end.

    While there is no table, runs go one at a time until one creates it (first writes would race)."""
    dates, failed, lock = run_dates(first, last), [], threading.Lock()

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
    failed.sort()
    named = f" ({', '.join(map(str, failed))})" if failed else ""
    return failed, f"ran {len(dates)} runs, {len(failed)} failed{named}; {table_summary(spark)}"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=parse_date, help="first run date (YYYY-MM-DD)")
    parser.add_argument("last", type=parse_date, help="last run date (YYYY-MM-DD), included")
    parser.add_argument("--allow-long", action="store_true", help="allow more than a year of runs")
    parser.add_argument("--parallel", type=int, metavar="N",
                        help="N runs at once; a run that loses a write conflict is retried")
    add_verbose(parser)
    args = parser.parse_args(argv)
    check_range(parser, args.first, args.last, args.allow_long)
    if args.parallel is not None and args.parallel < 1:
        parser.error(f"--parallel must be 1 or more, not {args.parallel}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        run_all = partial(backfill_parallel, workers=args.parallel) if args.parallel else backfill
        failed, closing = run_all(delta_spark("backfill"), args.first, args.last,
                                  show=lambda line: print(line, flush=True))
        print(closing)
        return 1 if failed else 0
    return run_main(body, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
