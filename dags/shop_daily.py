"""shop_daily: every day at 02:00 UTC, load yesterday's orders into orders_daily, then check them.

    source dags/airflow_env.sh && airflow standalone        # walkthrough: docs/airflow.md

Each task runs one of the toolkit's scripts in the project folder with the run date `{{ ds }}`,
so a run on D loads day D-1, exactly as `python load_day.py D` does by hand. Spark starts in the
script's own process: this file imports nothing heavy and parses in milliseconds.

Settings from the environment (read when the file is parsed, by the scheduler and by each task):
    SHOP_HOME                  project folder (default: the folder above dags/)
    SHOP_PYTHON                Python that runs the scripts (default: SHOP_HOME/.venv/bin/python if
                               it exists, else the Python running Airflow)
    SHOP_SPARK_REMOTE          a warm Spark Connect server for the tasks (python spark_server.py start
                               prints its address): each task then runs with SPARK_REMOTE set to it,
                               instead of starting its own Spark; the address and its token stay in
                               the environment, out of the rendered command
    SHOP_RETRIES               retries per task (default 2)
    SHOP_RETRY_DELAY_SECONDS   wait before a retry (default 300); tests set both low
Read by the scripts where each task runs, as SHOP_ROOT is: a task inherits the environment Airflow
was started with, so these set once there reach every load_day.py (docs/new_columns.md):
    SHOP_ON_NEW_COLUMN         what a load does with a column the table lacks: fail (default), add, rescue
    SHOP_COLUMN_TYPES          new columns' types, e.g. "discount DECIMAL(10,2)" (default: STRING)
"""
import datetime as dt
import sys
from pathlib import Path

from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

sys.path.insert(0, str(Path(__file__).resolve().parent))  # shop_settings.py, beside this file
from shop_settings import default_args, project_home, project_python, script_command  # noqa: E402

RUN_DATE = "{{ ds }}"


def toolkit_task(dag: DAG, script: str, home: Path, python: str) -> BashOperator:
    # skip_on_exit_code=None: every non-zero exit is a failure (the default would skip on 99).
    return BashOperator(
        task_id=Path(script).stem,
        bash_command=script_command(python, script, RUN_DATE),
        cwd=str(home),
        skip_on_exit_code=None,
        dag=dag,
    )


with DAG(
    dag_id="shop_daily",
    description="Load the day before the run date into orders_daily, then check it against its file",
    schedule="0 2 * * *",
    start_date=dt.datetime(2026, 8, 1, tzinfo=dt.timezone.utc),
    catchup=False,              # history is loaded on purpose, with `airflow backfill create`
    max_active_runs=1,          # one writer at a time on the Delta table
    default_args=default_args(),
    tags=["shop"],
) as shop_daily:
    home = project_home()
    python = project_python(home)
    load = toolkit_task(shop_daily, "load_day.py", home, python)
    check = toolkit_task(shop_daily, "check_day.py", home, python)
    # check_day keeps the default trigger rule (all_success): upstream_failed when the load fails.
    load >> check
