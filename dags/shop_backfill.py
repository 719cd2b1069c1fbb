"""shop_backfill: on demand, load a range of run dates into orders_daily with backfill.py, in few commits.

    airflow dags trigger shop_backfill --conf '{"first": "2026-09-02", "last": "2026-10-01"}'

Its one task runs, in the project folder (walkthrough: docs/airflow.md),

    <project>/.venv/bin/python backfill.py FIRST LAST --days-per-commit N

so the runs FIRST .. LAST load the days FIRST-1 .. LAST-1, exactly as that command does by hand. The
DAG run's params: first and last (run dates, YYYY-MM-DD, both required) and days_per_commit (a whole
number >= 1, or 0 / all for the whole range in one commit; default all), and for this run only,
on_new_column (fail, add or rescue) and column_types (`discount DECIMAL(10,2)`), passed as backfill.py's
--on-new-column and --column-types; without them the environment's SHOP_ON_NEW_COLUMN and SHOP_COLUMN_TYPES
hold, as in every task (docs/new_columns.md). The command is built when
the task runs, from the params checked here: only checked dates, numbers and settings reach
backfill.py, quoted, and a bad or missing param fails the task with one line (`error: param ...`), exit 2,
before any Spark starts. A day backfill.py cannot load fails the task too (exit 1), after the
other days have landed; its log names the day.

No retries: neither a missing file nor a bad param mends itself in minutes, and a retry would load
the whole range again. Rerun by triggering again (same range or just the failed run dates).

Settings from the environment, as in dags/shop_daily.py: SHOP_HOME, SHOP_PYTHON, SHOP_SPARK_REMOTE.
"""
import datetime as dt
import json
import re
import shlex
import sys
from pathlib import Path

from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

sys.path.insert(0, str(Path(__file__).resolve().parent))  # shop_settings.py, beside this file
from shop_settings import project_home, project_python, script_command  # noqa: E402

PARAMS = {"first": None, "last": None, "days_per_commit": "all", "on_new_column": None, "column_types": None}
TRIGGER = """trigger with --conf '{"first": "YYYY-MM-DD", "last": "YYYY-MM-DD"}'"""
USAGE_ERROR = 2  # as backfill.py's own usage errors (argparse)
MAX_RUNS = 366  # run_args.MAX_RUNS: backfill.py refuses more without --allow-long
MODES = ("fail", "add", "rescue")  # new_columns.MODES: what a load does with a column the table lacks


def shown(value) -> str:
    """A param's value as the conf's JSON spells it, on one line."""
    return json.dumps(value, default=str)


def run_date(params: dict, name: str) -> dt.date:
    """The param `name` as a date; ValueError naming it when it is missing or not a date."""
    value = params.get(name)
    if value is None or value == "":
        raise ValueError(f"param '{name}' is missing: {TRIGGER}")
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"param '{name}' is {shown(value)}, not a calendar date") from None
    raise ValueError(f"param '{name}' is {shown(value)}, not a date YYYY-MM-DD: {TRIGGER}")


def days_per_commit(params: dict) -> str:
    """backfill.py's --days-per-commit: a whole number >= 1, or 0 / all (the whole range in one commit)."""
    value = params.get("days_per_commit")
    text = "" if isinstance(value, bool) else str(value).strip().lower()  # JSON's true is no number
    if text == "all":
        return text
    if text.isascii() and text.isdigit():
        return str(int(text))
    raise ValueError(f"param 'days_per_commit' is {shown(value)}: give a whole number >= 1, or 0 or \"all\" "
                     "for the whole range in one commit")


def backfill_args(params: dict) -> list:
    """backfill.py's arguments from the DAG run's params; ValueError naming the first bad one."""
    first, last = run_date(params, "first"), run_date(params, "last")
    if first > last:
        raise ValueError(f"param 'first' {first} is after param 'last' {last}")
    runs = (last - first).days + 1
    if runs > MAX_RUNS:  # backfill.py's own refusal would be argparse's usage text, and name --allow-long
        raise ValueError(f"params 'first' {first} .. 'last' {last} are {runs} runs, more than a year "
                         f"({MAX_RUNS}): trigger a year at most at a time")
    return [str(first), str(last), "--days-per-commit", days_per_commit(params), *new_column_args(params)]


def new_column_args(params: dict) -> list:
    """backfill.py's --on-new-column and --column-types for this run, when the conf gives them (its types
    are checked by backfill.py: a bad one is its usage error, exit 2)."""
    mode, types = params.get("on_new_column"), params.get("column_types")
    if mode is not None and mode not in MODES:
        raise ValueError(f"param 'on_new_column' is {shown(mode)}: give {', '.join(MODES[:-1])} or {MODES[-1]}")
    if types is not None and not isinstance(types, str):
        raise ValueError(f"param 'column_types' is {shown(types)}, not a text like \"discount DECIMAL(10,2)\"")
    return [*(["--on-new-column", mode] if mode else []), *(["--column-types", types] if types else [])]


def backfill_command(params, python: str) -> str:
    """The task's shell line: backfill.py with the checked params, or one error line and exit 2."""
    try:
        args = backfill_args(params or {})
    except ValueError as error:
        return f"echo {shlex.quote(f'error: {error}')} >&2; exit {USAGE_ERROR}"
    return script_command(python, "backfill.py", *map(shlex.quote, args))


home = project_home()
python = project_python(home)

with DAG(
    dag_id="shop_backfill",
    description="Load the run dates FIRST .. LAST into orders_daily with backfill.py, in few Delta commits",
    schedule=None,              # only when triggered, with the range in its conf
    catchup=False,
    max_active_runs=1,          # one backfill at a time on the Delta table
    params=PARAMS,
    user_defined_filters={"backfill_command": lambda params: backfill_command(params, python)},
    tags=["shop"],
) as shop_backfill:
    # skip_on_exit_code=None: every non-zero exit is a failure (the default would skip on 99).
    BashOperator(task_id="backfill", bash_command="{{ params | backfill_command }}", cwd=str(home),
                 retries=0, skip_on_exit_code=None)
