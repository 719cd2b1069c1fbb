"""Start several runs at once in one Spark session and see which of them Delta lets commit.

    python parallel.py                           # runs 2026-09-02 .. 2026-09-05 at once into orders_daily
    python parallel.py 2026-09-10 2026-09-11     # the given runs at once
    python parallel.py --partitioned             # the same runs into a fresh table partitioned by order_date
    python parallel.py --tries 3                 # both layouts, each on a fresh table 3 times, and a summary

Each run prints its load line or `run 2026-09-02 failed: DELTA_CONCURRENT_APPEND.WITHOUT_HINT`. A run
that loses the race commits nothing, so the table holds whole days only; the closing line says so.
Exit 0 when the experiment ran and every table holds whole days only (lost races are its outcome);
exit 1 when a run failed for another reason or a day was left partly loaded.
Fresh tables live in experiments/<layout>/ beside landing/ (their folder is emptied on each try; its
landing/ links to the root's, or on an object store, which has no links, holds a copy of its files).
"""
import argparse
import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from delta_session import TABLE, delta_spark, orders_table, partition_new_table, table_exists
from shoptoolkit.run_args import (add_new_column, add_root, add_verbose, day_loaded_by, one_line, parse_date,
                                  run_dates, run_main)
from shoptoolkit.storage import (is_local, landing_dir, project_root, refuse_writers_at_once, remove_tree, root_at,
                                 shown, table_path)
from shoptoolkit.table import PARTITION_COLUMN, table_ddl
from shoptoolkit.truth import compare_day, file_ids, stored_ids
from shoptoolkit.writing import error_class
from load_day import load_day

DEFAULT_RUNS = ("2026-09-02", "2026-09-05")
EXPERIMENTS = Path("experiments")
LAYOUTS = {False: "unpartitioned", True: "partitioned"}


def create_table(spark, partitioned: bool) -> None:
    """An empty orders_daily in the given layout, so that the runs started together do not race to create it."""
    writer = spark.createDataFrame([], table_ddl()).write.format("delta")
    (writer.partitionBy(PARTITION_COLUMN) if partitioned else writer).save(str(table_path()))
    orders_table(spark)


def run_at_once(spark, dates, load=load_day) -> list:
    """Start load(spark, run_date) for every date in its own thread, all at one barrier.

    Returns [(run_date, ok, line)] in the order of dates; a failed run's line names its error class."""
    orders_table(spark)  # register the table once, before the threads read it
    start = threading.Barrier(len(dates))

    def one(run_date):
        start.wait()
        try:
            return run_date, True, load(spark, run_date)
        except Exception as error:  # one lost race must not hide the other runs' outcome
            return run_date, False, f"run {run_date} failed: {error_class(error) or one_line(error)}"

    with ThreadPoolExecutor(max_workers=len(dates)) as pool:
        return list(pool.map(one, dates))


def whole_days_only(spark, results) -> bool:
    """True when each succeeded run's day matches its file, and each failed run's day either matches
    it too (loaded before) or has no row: no day is left partly loaded."""
    days = [day_loaded_by(run_date) for run_date, _, _ in results]
    in_table = stored_ids(spark, min(days), max(days))
    for (_, ok, _), day in zip(results, days):
        stored = in_table.get(day, [])
        if (ok or stored) and not compare_day(day, *file_ids(day), stored)[0]:
            return False
    return True


@contextmanager
def experiment_folder(name: str):
    """Work in experiments/<name>/ (emptied first), with landing/ pointing at this folder's landing files."""
    landing, here = landing_dir(), project_root()
    folder = here / EXPERIMENTS / name
    remove_tree(folder, ignore_errors=True)
    place = folder / landing.relative_to(here)
    if is_local(place):
        place.parent.mkdir(parents=True)
        place.symlink_to(landing, target_is_directory=True)
    else:
        for path in landing.iterdir():
            (place / path.name).write_bytes(path.read_bytes())
    with root_at(folder):  # every path below the root now points into the experiment
        yield folder


def one_try(spark, dates, partitioned: bool) -> tuple:
    """The runs at once into a fresh table of the layout; return (results, whole days only, table shown)."""
    with experiment_folder(LAYOUTS[partitioned]):
        create_table(spark, partitioned)
        results = run_at_once(spark, dates)
        whole, where = whole_days_only(spark, results), shown(table_path())
    return results, whole, str(EXPERIMENTS / LAYOUTS[partitioned] / where)


def into_orders_daily(spark, dates) -> tuple:
    """The runs at once into orders_daily itself (created empty first, in its configured layout, if missing)."""
    created = not table_exists(spark)
    if created:
        create_table(spark, partition_new_table())
    results = run_at_once(spark, dates)
    return results, whole_days_only(spark, results), created


def closing(results, whole: bool, where: str) -> str:
    won = [str(run_date) for run_date, ok, _ in results if ok]
    lost = [run_date for run_date, ok, _ in results if not ok]
    state = "whole days only" if whole else "PROBLEM: a day partly loaded"
    line = f"{len(won)} of {len(results)} runs succeeded; {where} holds {state}"
    if lost:
        line += f"; load the others with: python backfill.py {min(lost)} {max(lost)}"
    return line


def summary(layout: str, success_counts: list, runs: int) -> str:
    """How many runs succeeded per try, e.g. `unpartitioned: 1 of 4 succeeded in 3 of 3 tries`.

    Tries with the same count of successes are grouped, most frequent first."""
    tries = len(success_counts)
    groups = sorted(Counter(success_counts).items(), key=lambda item: (-item[1], item[0]))
    parts = [f"{won} of {runs} succeeded in {count} of {tries} tries" for won, count in groups]
    return f"{layout}: " + ", ".join(parts)


def other_failures(results) -> bool:
    return any(not ok and "DELTA_CONCURRENT_APPEND" not in line for _, ok, line in results)


def tries_lines(spark, dates, tries: int, show) -> bool:
    """Run both layouts tries times each on fresh tables; show a line per try and the summary; True if all sound."""
    counts, sound = {False: [], True: []}, True
    for number in range(1, tries + 1):
        for partitioned in (False, True):
            results, whole, _ = one_try(spark, dates, partitioned)
            won = sum(ok for _, ok, _ in results)
            classes = sorted({line.split(": ", 1)[1] for _, ok, line in results if not ok})
            lost = f"; lost: {', '.join(classes)}" if classes else ""
            show(f"try {number} {LAYOUTS[partitioned]}: {won} of {len(dates)} succeeded{lost}; "
                 f"{'whole days only' if whole else 'PROBLEM: a day partly loaded'}")
            counts[partitioned].append(won)
            sound = sound and whole and not other_failures(results)
    for partitioned in (False, True):
        show(summary(LAYOUTS[partitioned], counts[partitioned], len(dates)))
    return sound


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dates", nargs="*", type=parse_date,
                        help="run dates to start at once (default: 2026-09-02 .. 2026-09-05)")
    parser.add_argument("--partitioned", action="store_true",
                        help="run into a fresh table partitioned by order_date instead of orders_daily")
    parser.add_argument("--tries", type=int, default=0,
                        help="run both layouts N times, each on a fresh table, and print a summary")
    add_verbose(parser)
    add_root(parser)
    add_new_column(parser)
    args = parser.parse_args(argv)
    if args.tries < 0:
        parser.error(f"--tries must be 1 or more, not {args.tries}")
    args.run_dates = sorted(set(args.run_dates)) or run_dates(*DEFAULT_RUNS)
    if len(args.run_dates) < 2:
        parser.error("give two run dates or more: one run alone has nobody to race")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        spark = delta_spark("parallel")
        refuse_writers_at_once(spark)

        def show(line):
            print(line, flush=True)
        if args.tries:
            return 0 if tries_lines(spark, args.run_dates, args.tries, show) else 1
        if args.partitioned:
            results, whole, where = one_try(spark, args.run_dates, True)
        else:
            results, whole, created = into_orders_daily(spark, args.run_dates)
            where = TABLE
            if created:
                show(f"created {TABLE} empty first, so that the runs do not race to create it")
        for _, _, line in results:
            show(line)
        show(closing(results, whole, where))
        return 0 if whole and not other_failures(results) else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
