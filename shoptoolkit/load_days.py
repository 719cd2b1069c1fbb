"""Load the days of several runs into orders_daily in one Delta commit, then check them in one query.

    from shoptoolkit.load_days import load_days
    for ok, line in load_days(spark, ["2026-09-02", "2026-09-03"]):   # days 2026-09-01 and 2026-09-02
        print(line)

What backfill.py --days-per-commit N does with each N run dates. Every day's file is checked line by
line and hashed as load_day does; a day whose file is missing or refused, or whose ids another day
holds (in the table or earlier in the same commit), is left out: it keeps its old rows and its run
fails with load_day's line. The other days land in one commit whose replaceWhere names exactly them
(`order_date IN (DATE'...', ...)`) and whose user metadata holds each day's lineage; the commit
lands whole or not at all. The loaded days are then checked against their files in one query.
"""
import json

from shoptoolkit.day_compare import check_days
from shoptoolkit.day_file_check import bad_line, line_of_id, one_file_a_task, read_day_file, read_days
from shoptoolkit.errors import ToolkitError, one_line
from shoptoolkit.jvm.expression_mode import small_day_queries
from shoptoolkit.lineage import lineage_entry
from shoptoolkit.project_paths import day_file, shown, table_path
from shoptoolkit.retry import print_now, retrying
from shoptoolkit.run_args import as_date, day_loaded_by
from shoptoolkit.table import IDS_IN_QUERY, TABLE, new_table_layout, orders_table, table_exists
from shoptoolkit.table_schema import PARTITION_COLUMN


def checked_files(run_dates) -> tuple:
    """([(run date, day, DayFile)] of the files that pass load_day's checks, {run date: why not} of the others)."""
    passed, refused = [], {}
    for run_date in map(as_date, run_dates):
        day = day_loaded_by(run_date)
        try:
            if not day_file(day).exists():
                raise ToolkitError(f"no file {shown(day_file(day))} for run {run_date}")
            passed.append((run_date, day, read_day_file(day)))
        except ToolkitError as error:
            refused[run_date] = one_line(error)
    return passed, refused


def files_of(spark, passed):
    """read_days' frame of the files of [(run date, day, DayFile)]."""
    return read_days(spark, [(day, found) for _, day, found in passed])


def id_range(passed) -> tuple:
    """(how many ids, the lowest, the highest) of the files' order ids."""
    lists = [found.order_ids for _, _, found in passed if found.order_ids]
    if not lists:
        return 0, None, None
    return sum(map(len, lists)), min(map(min, lists)), max(map(max, lists))


def stored_elsewhere(spark, passed) -> dict:
    """{order id: {days}}: the days the table holds ids of these files on (at least every day other than
    the id's file's own).

    As in load_day, the filter on the lowest and highest id lets Delta skip every stored file whose
    ids cannot overlap; up to IDS_IN_QUERY ids are named in the query, more are joined with the files."""
    count, lowest, highest = id_range(passed)
    if not count or not table_exists(spark):
        return {}
    from pyspark.sql import functions as F
    stored = (orders_table(spark).where(F.col("order_id").between(lowest, highest))
              .select("order_id", F.col(PARTITION_COLUMN).alias("stored_on")))
    if count <= IDS_IN_QUERY:
        stored = stored.where(F.col("order_id").isin([i for _, _, found in passed for i in found.order_ids]))
    else:
        stored = (stored.join(files_of(spark, passed).select("order_id", PARTITION_COLUMN), "order_id")
                  .where(F.col("stored_on") != F.col(PARTITION_COLUMN)).limit(100_000))
    found = {}
    for row in stored.collect():
        found.setdefault(row.order_id, set()).add(row.stored_on)
    return found


def in_several_files(spark, passed) -> set:
    """The ids that more than one of the files holds (a file holds an id once: read_day_file's check);
    counted in Python for a few ids, in Spark for many (no set of every id in Python)."""
    if id_range(passed)[0] <= IDS_IN_QUERY:
        seen, twice = set(), set()
        for _, _, found in passed:
            twice.update(seen.intersection(found.order_ids))
            seen.update(found.order_ids)
        return twice
    several = files_of(spark, passed).groupBy("order_id").count().where("count > 1")
    return {row.order_id for row in several.limit(100_000).collect()}


def without_clashes(passed, elsewhere: dict, shared: set) -> tuple:
    """(the days to commit, {run date: why not}), in run order, as runs one after another would find
    them: a day is refused when an id of its file is stored on another day that this commit does not
    replace before it, or is in the file of a day taken before it in this commit (shared: such ids)."""
    taken, taken_days, refused = {}, set(), {}
    for run_date, day, found in passed:
        clash = sorted({(order_id, on) for order_id in found.order_ids
                        for on in elsewhere.get(order_id, ()) if on != day and on not in taken_days}
                       | {(order_id, taken[order_id]) for order_id in found.order_ids if order_id in taken})
        if clash:
            listed = ", ".join(f"{order_id} (on {on})" for order_id, on in clash[:5])
            refused[run_date] = str(bad_line(found.path, line_of_id(found, clash[0][0]),
                                             f"order_id already stored on another day: {listed}"))
            continue
        taken.update((order_id, day) for order_id in shared.intersection(found.order_ids))
        taken_days.add(day)
    return [entry for entry in passed if entry[0] not in refused], refused


def days_predicate(days) -> str:
    """replaceWhere for exactly these days, as DATE literals (load_day's reason: Delta skips other days' files)."""
    if len(days) == 1:
        return f"{PARTITION_COLUMN} = DATE'{days[0]}'"
    return f"{PARTITION_COLUMN} IN ({', '.join(f'DATE{chr(39)}{day}{chr(39)}' for day in days)})"


def commit_lineage(loading) -> str:
    """The commit's user metadata: load_day's lineage for one day, {"days": [...]} for several."""
    entries = [lineage_entry(run_date, day, found) for run_date, day, found in loading]
    return json.dumps(entries[0] if len(entries) == 1 else {"days": entries}, sort_keys=True)


def write_days(spark, passed) -> tuple:
    """One attempt: refuse the clashing days, then replace the others in one commit; (loaded, refused)."""
    loading, refused = without_clashes(passed, stored_elsewhere(spark, passed), in_several_files(spark, passed))
    if loading:
        days = [day for _, day, _ in loading]
        writer = (files_of(spark, loading).write.format("delta")
                  .mode("overwrite").option("replaceWhere", days_predicate(days))
                  .option("userMetadata", commit_lineage(loading)))
        with one_file_a_task(spark):  # a day's rows in files of its own: a later rerun of it rewrites no other day
            new_table_layout(spark, writer).save(str(table_path()))
    return loading, refused


@small_day_queries
def load_days(spark, run_dates, what: str = "", show=print_now) -> tuple:
    """Load the days of run_dates in one commit and check them; return (days committed, [(run date, ok, line)])
    in run order. what names the commit in the lines (`commit 2 of 5`); a lost write conflict is retried."""
    what = what or f"commit of {len(run_dates)} runs"
    passed, refused = checked_files(run_dates)
    lines = {run_date: (False, f"run {run_date} failed: {why} (left out of {what})")
             for run_date, why in refused.items()}
    try:
        loaded, clashed = retrying(lambda: write_days(spark, passed), what, show) if passed else ([], {})
    except Exception as error:  # nothing of the commit landed: each of its runs fails with the reason
        loaded, clashed = [], {}
        lines.update({run_date: (False, f"run {run_date} failed: {one_line(error)} ({what}, not written)")
                      for run_date, _, _ in passed})
    lines.update({run_date: (False, f"run {run_date} failed: {why} (left out of {what})")
                  for run_date, why in clashed.items()})
    lines.update(run_lines(spark, loaded, what))
    return len(loaded), [(run_date, *lines[run_date]) for run_date in map(as_date, run_dates)]


def run_lines(spark, loaded, what: str) -> dict:
    """{run date: (ok, line)} for the days of a landed commit: the load's line and check_days' verdict."""
    if not loaded:
        return {}
    found_days = [(day, found) for _, day, found in loaded]
    try:
        total = orders_table(spark).count()
        verdicts = check_days(spark, found_days, read_days(spark, found_days))  # a lazy frame: read if used
    except Exception as error:  # the commit landed; its check could not run
        return {run_date: (False, f"run {run_date} loaded {day}, its check failed: {one_line(error)} ({what})")
                for run_date, day, _ in loaded}
    return {run_date: (verdicts[day][0], f"run {run_date} loaded {day}: {found.count} rows, {TABLE} has "
                                         f"{total}; {verdicts[day][1]} ({what})")
            for run_date, day, found in loaded}
