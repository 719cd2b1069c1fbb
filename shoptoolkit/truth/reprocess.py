"""Which run dates a backfill runs, chosen from the state of the day each one loads (day_truth.py).

    python backfill.py 2026-09-02 2026-10-01 --reprocess changed --dry-run

--reprocess all      every run date (the default, and the only choice that reads no state)
--reprocess failed   days that are mismatch, missing or no file: what a failed run leaves behind
--reprocess missing  days with a file and no rows
--reprocess changed  days that are changed, mismatch or missing: whatever a rerun would fix
A day rerun from its unchanged file is ok afterwards, so the same command right after runs nothing.
"""
from shoptoolkit.dates import day_loaded_by, run_dates
from shoptoolkit.truth.day_truth import day_states
from shoptoolkit.truth.verdict import STATES

REPROCESS = {
    "all": STATES,
    "failed": ("mismatch", "missing", "no file"),
    "missing": ("missing",),
    "changed": ("changed", "mismatch", "missing"),
}


def plan_runs(spark, first, last, reprocess: str) -> list:
    """(run date, DayState of the day it loads, whether it runs) for every run date, first to last."""
    dates = run_dates(first, last)
    states = day_states(spark, day_loaded_by(dates[0]), day_loaded_by(dates[-1]))
    return [(run_date, found, found.state in REPROCESS[reprocess]) for run_date, found in zip(dates, states)]


def dates_to_run(spark, first, last, reprocess: str = "all") -> list:
    """The run dates from first to last that --reprocess chooses; `all` reads nothing to choose."""
    if reprocess == "all":
        return run_dates(first, last)
    return [run_date for run_date, _, runs in plan_runs(spark, first, last, reprocess) if runs]


def dry_run(spark, first, last, reprocess: str = "all") -> list:
    """The lines of a dry run: what --reprocess would run and skip, and why; nothing is written."""
    plan = plan_runs(spark, first, last, reprocess)
    lines = [f"dry run, --reprocess {reprocess}: {chooses(reprocess)}"]
    lines += [f"run {run_date} loads {found.day}: {'would run' if runs else 'skip'} ({found.state})"
              for run_date, found, runs in plan]
    chosen = sum(runs for _, _, runs in plan)
    lines.append(f"dry run: {chosen} of {len(plan)} runs would run, {len(plan) - chosen} skipped; "
                 f"nothing written")
    return lines


def chooses(reprocess: str) -> str:
    """What a --reprocess choice runs, in words: `runs the days that are changed, mismatch or missing`."""
    if reprocess == "all":
        return "runs every date"
    *most, last = REPROCESS[reprocess]
    return f"runs the days that are {', '.join(most) + ' or ' if most else ''}{last}"
