"""Load the days of several runs into orders_daily in one Delta commit, then check them in one query.

    from shoptoolkit.writing.commit_days import load_days
    for ok, line in load_days(spark, ["2026-09-02", "2026-09-03"]):   # days 2026-09-01 and 2026-09-02
        print(line)

What backfill.py --days-per-commit N does with each N run dates. Days whose files are big together
(from BIG_FILES) are read, checked and written in one Spark job whose commit waits for their facts
(held_write.py). Otherwise, or when that job meets a refused line or a clash, every day's file is
checked line by line and hashed as load_day does (in one Spark query when they are big together); a
day whose file is missing or refused, or whose ids another day holds (in the table or earlier in the
same commit: commit_ids.py), is left out: it keeps its old rows and its run fails with load_day's
line. The other days land in one commit whose replaceWhere names exactly them (`order_date IN
(DATE'...', ...)`) and whose user metadata holds each day's lineage; the commit lands whole or not at
all, its rows in a file a run of consecutive days (day_frames.packed_days). A file's new columns are
taken under the setting in force (till/new_columns.py), as load_day takes them: a column the table lacks
is added by the commit itself (mergeSchema, on either way: the one job's held write takes it too), and a
day whose file lacks it holds null there. The loaded days are then checked on check_day's route
(day_truth.py) from the files just checked: by the commit's record in the Delta log, and those it does
not prove against those files.
"""
import json
from dataclasses import replace

from shoptoolkit.dates import as_date, day_loaded_by
from shoptoolkit.engine.expression_mode import small_day_queries
from shoptoolkit.engine.spark_errors import one_line
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import day_file, shown, table_path
from shoptoolkit.table.delta_table import TABLE, existing_table, new_table_layout, table_after_write
from shoptoolkit.table.load_lineage import lineage_entry
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.day_frames import packed_days
from shoptoolkit.till.in_python import file_facts, read_day_file
from shoptoolkit.till.in_spark import big_enough, checked_in_spark, spark_check_bytes
from shoptoolkit.till.new_columns import current, setting_for, table_extras, using
from shoptoolkit.truth.day_truth import DayTruth
from shoptoolkit.writing.commit_ids import clashes_before, in_several_files, stored_elsewhere, without_clashes
from shoptoolkit.writing.held_write import held_days, one_job_fits
from shoptoolkit.writing.late_clash import day_predicate, take_back_late_clashes, version_checked
from shoptoolkit.writing.retry import print_now, retrying


def checked_files(spark, run_dates) -> tuple:
    """([(run date, day, DayFile)] of the files that pass load_day's checks, {run date: why not} of the
    others). From SPARK_CHECK_BYTES of files together, they are checked in one Spark query."""
    days = [day_loaded_by(run_date) for run_date in map(as_date, run_dates)]
    facts = {day: file_facts(day_file(day), keep_under=spark_check_bytes()) for day in days}  # each file read once
    present = [day for day in days if facts[day]]
    known = {day: (facts[day].size, facts[day].sha256, facts[day].first) for day in present}
    big = present and big_enough(sum(facts[day].size for day in present))
    in_spark = checked_in_spark(spark, present, known=known) if big else {}
    passed, refused = [], {}
    for run_date, day in zip(map(as_date, run_dates), days):
        try:
            if not facts[day]:
                raise ToolkitError(f"no file {shown(day_file(day))} for run {run_date}")
            if day in in_spark and in_spark[day].refusal:
                raise in_spark[day].refusal
            passed.append((run_date, day, in_spark[day].found if day in in_spark else read_day_file(day, facts[day].data)))
        except ToolkitError as error:
            refused[run_date] = one_line(error)
    return passed, refused


def days_predicate(days) -> str:
    """replaceWhere for exactly these days, as DATE literals (load_day's reason: Delta skips other days' files)."""
    if len(days) == 1:
        return day_predicate(days[0])
    return f"{PARTITION_COLUMN} IN ({', '.join(f'DATE{chr(39)}{day}{chr(39)}' for day in days)})"


def commit_lineage(loading, absent=lambda columns: [], added=lambda types: {}) -> str:
    """The commit's user metadata: load_day's lineage for one day, {"days": [...]} for several; absent: the
    table's new columns a file of these columns lacks (new_columns.NewColumns.absent), added: the columns the
    commit adds that a file of these new columns (types) brings (NewColumns.added)."""
    entries = [lineage_entry(run_date, day, found, None, absent(found.columns)) for run_date, day, found in loading]
    for entry, (_, _, found) in zip(entries, loading):
        entry.update({"columns_added": added(found.types)} if added(found.types) else {})
    return json.dumps(entries[0] if len(entries) == 1 else {"days": entries}, sort_keys=True)


def commit_columns(loading) -> tuple:
    """(the columns the commit adds to the table, {name: type}; the setting of new columns as the table
    will be once it has them): each day as load_day would add them, under the setting in force."""
    setting = current()
    added = {name: kind for _, _, found in loading for name, kind in setting.added(found.types).items()}
    return added, replace(setting, table={**setting.table, **added})


def write_days(spark, passed, show=print_now, held=None):
    """One attempt: refuse the clashing days, then replace the others in one commit; (loaded, refused).
    A day whose id another writer stored on another day while this one was on its way is taken back.
    held: the days written in one job (held_write.py), committed only if no day clashes, else None."""
    checked_at = version_checked(spark)
    elsewhere, shared = stored_elsewhere(spark, passed), in_several_files(spark, passed)
    loading, refused = without_clashes(spark, passed, elsewhere, shared)
    if held is not None and refused:
        return None  # the held files are deleted; the two-pass way words the clash
    if loading:
        table = existing_table(spark)  # its new columns at this attempt: another writer may have added one
        columns = table_extras(table.schema) if table is not None else {}
        with using(replace(current(), table=columns)):
            (added, after), days = commit_columns(loading), [day for _, day, _ in loading]
            metadata = commit_lineage(loading, after.absent, current().added)
            if held is not None:
                held.commit(metadata)
            else:
                writer = (packed_days(spark, [(day, found) for _, day, found in loading]).write.format("delta")
                          .mode("overwrite").option("mergeSchema", str(bool(added)).lower())
                          .option("replaceWhere", days_predicate(days)).option("userMetadata", metadata))
                new_table_layout(spark, writer).save(str(table_path()))  # a file a run of consecutive days
        late = take_back_late_clashes(spark, checked_at, metadata,
                                      lambda table: clashes_before(spark, loading, table), show, columns)
        refused.update({run_date: late[day] for run_date, day, _ in loading if day in late})
        loading = [entry for entry in loading if entry[1] not in late]
    return loading, refused


def in_one_job(spark, passed, show=print_now):
    """One attempt at the days of passed ([(run date, day, None)], their files there) read, checked and
    written in one job (held_write.py): write_days' (loaded, refused), or None when a file or a clash
    refuses a day (nothing is committed; the two-pass way words why)."""
    days = [day for _, day, _ in passed]
    held = held_days(spark, days, days_predicate(days))
    if held is None:
        return None
    with held:  # its files are deleted unless committed
        return write_days(spark, [(run_date, day, held.found[day]) for run_date, day, _ in passed], show, held)


def present_runs(run_dates) -> tuple:
    """([(run date, day, None)] of the runs whose file is there, {run date: why not} of the others)."""
    present, missing = [], {}
    for run_date in map(as_date, run_dates):
        day = day_loaded_by(run_date)
        if day_file(day).exists():
            present.append((run_date, day, None))
        else:
            missing[run_date] = f"no file {shown(day_file(day))} for run {run_date}"
    return present, missing


def written(spark, run_dates, what: str, show) -> tuple:
    """(passed, refused, (loaded, clashed) or the error that stopped the commit): in one job when the days
    fit it and no file or clash refuses one, else checked (checked_files), then written."""
    passed, refused = present_runs(run_dates)
    try:
        fits = bool(passed) and one_job_fits(spark, [day for _, day, _ in passed])
        done = retrying(lambda: in_one_job(spark, passed, show), what, show) if fits else None
        if done is not None:
            return passed, refused, done
    except Exception as error:  # nothing of the commit landed
        return passed, refused, error
    passed, refused = checked_files(spark, run_dates)
    try:
        return passed, refused, retrying(lambda: write_days(spark, passed, show), what, show) if passed else ([], {})
    except Exception as error:
        return passed, refused, error


@small_day_queries
def load_days(spark, run_dates, what: str = "", show=print_now) -> tuple:
    """Load the days of run_dates in one commit and check them; return (days committed, [(run date, ok, line)])
    in run order. what names the commit in the lines (`commit 2 of 5`); a lost write conflict is retried."""
    what = what or f"commit of {len(run_dates)} runs"
    table = existing_table(spark)  # its new columns: a file's are taken as the setting in force says
    with using(setting_for(table=table_extras(table.schema) if table is not None else {})):
        passed, refused, done = written(spark, run_dates, what, show)
    lines = {run_date: (False, f"run {run_date} failed: {why} (left out of {what})")
             for run_date, why in refused.items()}
    if isinstance(done, Exception):  # each run of the commit fails with the reason
        lines.update({run_date: (False, f"run {run_date} failed: {one_line(done)} ({what}, not written)")
                      for run_date, _, _ in passed})
        done = ([], {})
    loaded, clashed = done
    lines.update({run_date: (False, f"run {run_date} failed: {why} (left out of {what})")
                  for run_date, why in clashed.items()})
    lines.update(run_lines(spark, loaded, what))
    return len(loaded), [(run_date, *lines[run_date]) for run_date in map(as_date, run_dates)]


def run_lines(spark, loaded, what: str) -> dict:
    """{run date: (ok, line)} for the days of a landed commit: the load's line and the day's truth
    (day_truth.py), from the files the load has just checked, not read again."""
    if not loaded:
        return {}
    truth = DayTruth([day for _, day, _ in loaded], checked={day: found for _, day, found in loaded})
    try:
        table = table_after_write(spark)  # the commit just landed: the log is not looked at again
        total, found = table.count(), {state.day: state for state in truth.states(spark, lineage=False, table=table)}
    except Exception as error:  # the commit landed; its check could not run
        return {run_date: (False, f"run {run_date} loaded {day}, its check failed: {one_line(error)} ({what})")
                for run_date, day, _ in loaded}
    return {run_date: (found[day].matches, f"run {run_date} loaded {day}: {rows.count} rows, {TABLE} has "
                                            f"{total}; {found[day].message} ({what})")
            for run_date, day, rows in loaded}
