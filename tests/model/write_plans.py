"""The Plans of the operations that write: load_day, backfill (its options), restore_day, partition_table.
Each names the steps the model works out when the write commits (table_model.py). A load or a backfill
may give --on-new-column (op["new_column"]: add or rescue; without it, fail), in the shared session as a
notebook does: load_day's keyword, SHOP_ON_NEW_COLUMN for backfill (the generator gives it to loads only)."""
import os
from contextlib import contextmanager
from functools import partial

from model import expect
from model.plan import ONE_DAY, Plan, error_or
from model.table_model import days_between, load_outcome, partition_outcome, restore_outcome


def new_column_options(op) -> list:
    return ["--on-new-column", op["new_column"]] if op.get("new_column") else []


@contextmanager
def new_column_setting(op):
    """SHOP_ON_NEW_COLUMN set to op's while inside (when it has one), as it was after."""
    from shoptoolkit.till.new_columns import MODE_ENV
    kept = os.environ.get(MODE_ENV)
    if op.get("new_column"):
        os.environ[MODE_ENV] = op["new_column"]
    try:
        yield
    finally:
        os.environ.pop(MODE_ENV, None)
        os.environ.update({MODE_ENV: kept} if kept is not None else {})


def load_plan(op, model, days) -> Plan:
    day = days[op["day"]]
    run_date = day + ONE_DAY
    mode = op.get("new_column") or "fail"

    def call(spark, show):
        from load_day import load_day, load_retrying
        load = partial(load_day, on_new_column=op.get("new_column"))
        return 0, [load_retrying(spark, run_date, show=show, load=load)]

    def expected(model, results):
        outcome = results[0][0]
        return error_or(outcome, [f"run {run_date} loaded {day}: {outcome.loaded[0][2] if outcome.loaded else 0} "
                                  f"rows, orders_daily has {model.now.total() if model.now else 0}"])
    step = partial(load_outcome, runs=[(run_date, day)], mode=mode)
    return Plan(["load_day.py", str(run_date), *new_column_options(op)], call, expected, [[step]])


def backfill_options(op) -> list:
    options = [] if op.get("reprocess", "all") == "all" else ["--reprocess", op["reprocess"]]
    options += [] if op.get("per_commit", 1) == 1 else ["--days-per-commit", str(op["per_commit"] or "all")]
    options += [] if op.get("parallel", 1) == 1 else ["--parallel", str(op["parallel"])]
    return options + new_column_options(op) + (["--dry-run"] if op.get("dry_run") else [])


def backfill_threads(op, dates: list) -> list:
    """The writes of a backfill of dates: a load a run or a commit of per_commit days, one after another
    (one thread) or at once (a thread each)."""
    size = op["per_commit"] or max(len(dates), 1)
    units = [[(run_date, run_date - ONE_DAY)] for run_date in dates] if op["per_commit"] == 1 else [
        [(run_date, run_date - ONE_DAY) for run_date in dates[at:at + size]] for at in range(0, len(dates), size)]
    steps = [partial(load_outcome, runs=unit, mode=op.get("new_column") or "fail", several=op["per_commit"] != 1)
             for unit in units]
    return [steps] if op["parallel"] == 1 else [[step] for step in steps]


def backfill_plan(op, model, days) -> Plan:
    run_dates = [days[place] + ONE_DAY for place in range(op["first"], op["last"] + 1)]
    argv = ["backfill.py", str(run_dates[0]), str(run_dates[-1]), *backfill_options(op)]
    from backfill import backfill
    from shoptoolkit.truth.reprocess import dry_run
    if op.get("dry_run"):
        lines = expect.dry_run(model, run_dates, op["reprocess"])
        return Plan(argv, lambda spark, show: (0, dry_run(spark, run_dates[0], run_dates[-1], op["reprocess"])),
                    lambda model, results: (0, lines))
    dates = [run_date for run_date, _, runs in expect.chosen(model, run_dates, op["reprocess"]) if runs]

    def call(spark, show):
        shown = []
        with new_column_setting(op):
            failed, closing = backfill(spark, run_dates[0], run_dates[-1], show=shown.append, reprocess=op["reprocess"],
                                       workers=op["parallel"], days_per_commit=op["per_commit"])
        return int(bool(failed)), shown + [closing]

    def expected(model, results):
        outcomes = [outcome for thread in results for outcome in thread]
        failed = [run_date for outcome in outcomes for run_date in outcome.refused]
        commits = None if op["per_commit"] == 1 else sum(outcome.version is not None for outcome in outcomes)
        lines = [line for number, outcome in enumerate(outcomes, start=1)
                 for line in unit_lines(model, outcome, op["per_commit"], f"commit {number} of {commit_units(op, dates)}")]
        closing = expect.closing_line(model, len(dates), failed, len(run_dates) - len(dates), commits)
        return int(bool(failed)), lines + [closing]
    return Plan(argv, call, expected, backfill_threads(op, dates))


def commit_units(op, dates: list) -> int:
    """How many commits a backfill of dates with --days-per-commit makes at most."""
    size = op["per_commit"] or max(len(dates), 1)
    return -(-len(dates) // size)


def unit_lines(model, outcome, per_commit: int, what: str) -> list:
    """The lines a backfill prints for one of its units (a run, or a commit of runs), in run order."""
    rows = {run_date: (day, count) for run_date, day, count in outcome.loaded}
    total = outcome.version.total() if outcome.version else 0
    ending = "" if per_commit == 1 else f" ({what})"
    lines, ok = [], 0
    for run_date in sorted(set(rows) | set(outcome.refused)):
        if run_date in outcome.refused:
            left_out = "" if per_commit == 1 else f" (left out of {what})"
            lines.append(f"run {run_date} failed: {outcome.refused[run_date]}{left_out}")
            continue
        day, count = rows[run_date]
        checked, verdict = expect.check_day(model, run_date)
        ok += checked
        lines.append(f"run {run_date} loaded {day}: {count} rows, orders_daily has {total}; {verdict}{ending}")
    if per_commit != 1:
        written = f"{len(rows)} day{'' if len(rows) == 1 else 's'} in one commit" if rows else "nothing written"
        lines.append(f"{what}: {written}, {ok} of {len(lines)} runs ok")
    return lines


def restore_plan(op, model, days) -> Plan:
    first_day, last_day = days[op["first"]], days[op["last"]]
    newest = len(model.versions) - 1
    version = max(0, newest - op["back"]) if op["back"] >= 0 else newest - op["back"]
    argv = ["restore_day.py", str(first_day + ONE_DAY)] + ([str(last_day + ONE_DAY)] if last_day != first_day else [])
    argv += ["--version", str(version)] + (["--dry-run"] if op.get("dry_run") else [])
    import restore_day
    if op.get("dry_run"):
        lines = restore_dry_run(model, first_day, last_day, version)
        return Plan(argv, lambda spark, show: (0, restore_day.dry_run(spark, first_day, last_day, version)),
                    lambda model, results: lines)

    def call(spark, show):
        return 0, [restore_day.restore_days(spark, first_day, last_day, version, show=show)]
    return Plan(argv, call, lambda model, results: error_or(results[0][0], [results[0][0].line]),
                [[lambda model: restore_outcome(model, first_day, last_day, version)]])


def restore_dry_run(model, first_day, last_day, version: int) -> tuple:
    refused = restore_outcome(model, first_day, last_day, version)
    if refused.refused:
        return error_or(refused, [])
    days = days_between(first_day, last_day)
    now = [len(model.now.table.get(day, ())) for day in days]
    then = [len(model.versions[version].table.get(day, ())) for day in days]
    lines = [f"{day}: {rows} rows now, {old} at version {version}" for day, rows, old in zip(days, now, then)]
    return 0, lines + [f"dry run: would restore {len(days)} day{'s' if len(days) > 1 else ''} from version "
                       f"{version} ({sum(now)} rows -> {sum(then)}); nothing written"]


def partition_plan(op, model, days) -> Plan:
    def call(spark, show):
        from partition_table import partition_by_day
        return 0, [partition_by_day(spark, show=show)]
    return Plan(["partition_table.py"], call, lambda model, results: error_or(results[0][0], [results[0][0].line]),
                [[partition_outcome]])
