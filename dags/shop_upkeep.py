"""shop_upkeep: on the 1st of each month at 04:00 UTC, compact the closed months of orders_daily, then VACUUM.

    airflow dags unpause shop_upkeep        # walkthrough: docs/airflow.md

Its one task runs, in the project folder,

    <project>/.venv/bin/python upkeep.py --today {{ ds }}

exactly as that command does by hand: every month before the run date's month is rewritten into few
files (one commit a month, each day's lineage kept), then VACUUM deletes only what no version of the
table's undo window needs. Monthly on the 1st because that is when the month before is closed: shop_daily's
02:00 run of the 1st has loaded its last day. At 04:00, after shop_daily (02:00) and sdp_nightly (03:00):
two Spark JVMs at once halve each other's speed. A load that still commits meanwhile (a late rerun)
only makes upkeep.py work that month out again. A retry is safe: a month already compacted has
nothing left to compact.

Settings from the environment, as in dags/shop_daily.py: SHOP_HOME, SHOP_PYTHON, SHOP_SPARK_REMOTE,
SHOP_RETRIES, SHOP_RETRY_DELAY_SECONDS.
"""
import datetime as dt
import sys
from pathlib import Path

from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

sys.path.insert(0, str(Path(__file__).resolve().parent))  # shop_settings.py, beside this file
from shop_settings import default_args, project_home, project_python, script_command  # noqa: E402

RUN_DATE = "{{ ds }}"

home = project_home()
python = project_python(home)

with DAG(
    dag_id="shop_upkeep",
    description="Compact each closed month of orders_daily into few files, then VACUUM within the undo window",
    schedule="0 4 1 * *",       # the 1st: the month before is closed; after shop_daily's 02:00
    start_date=dt.datetime(2026, 8, 1, tzinfo=dt.timezone.utc),
    catchup=False,              # each run compacts every closed month: one missed is done by the next
    max_active_runs=1,          # one upkeep at a time on the Delta table
    default_args=default_args(),
    tags=["shop"],
) as shop_upkeep:
    # skip_on_exit_code=None: every non-zero exit is a failure (the default would skip on 99).
    BashOperator(task_id="upkeep", bash_command=script_command(python, "upkeep.py", "--today", RUN_DATE),
                 cwd=str(home), skip_on_exit_code=None)
