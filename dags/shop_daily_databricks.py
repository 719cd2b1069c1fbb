"""shop_daily_databricks: every day at 02:00 UTC, start the Lakeflow job shop_daily with run_date = {{ ds }}.

    make databricks-setup      # the provider: apache-airflow-providers-databricks (requirements/databricks.txt)

The job (databricks.yml, docs/databricks.md) loads and checks the day before its run_date on Databricks,
as dags/shop_daily.py does here; this DAG only starts it and waits for its result. When Airflow starts
the runs, deploy the job with its own schedule paused (--var schedule_pause_status=PAUSED), or each day
runs twice. Without the provider this file is an import error naming it; shop_daily is not affected.

Settings from the environment (read when the file is parsed):
    SHOP_DATABRICKS_CONN_ID    Airflow connection to the workspace (default: databricks_default)
    SHOP_DATABRICKS_JOB_NAME   the job's name in the workspace (default: shop_daily; a dev deployment
                               is named "[dev <user>] shop_daily")
    SHOP_ON_NEW_COLUMN         when set, the job parameter on_new_column of every run (fail, add or
    SHOP_COLUMN_TYPES          rescue), and column_types (docs/new_columns.md); unset, the job's own
                               defaults hold (the bundle's variables on_new_column, column_types)
"""
import datetime as dt
import os

from airflow.sdk import DAG

try:
    from airflow.providers.databricks.operators.databricks import DatabricksRunNowOperator
except ImportError as error:
    raise ImportError("shop_daily_databricks needs apache-airflow-providers-databricks: "
                      "make databricks-setup (requirements/databricks.txt)") from error

CONN_ID_ENV, JOB_NAME_ENV = "SHOP_DATABRICKS_CONN_ID", "SHOP_DATABRICKS_JOB_NAME"
# The environment's setting of new columns, as the job's parameters of the same meaning (new_columns.py).
NEW_COLUMN_PARAMETERS = {"on_new_column": "SHOP_ON_NEW_COLUMN", "column_types": "SHOP_COLUMN_TYPES"}

with DAG(
    dag_id="shop_daily_databricks",
    description="Start the Lakeflow job shop_daily for the run date and wait for its result",
    schedule="0 2 * * *",
    start_date=dt.datetime(2026, 8, 1, tzinfo=dt.timezone.utc),
    catchup=False,
    max_active_runs=1,          # the job itself runs one at a time (max_concurrent_runs: 1)
    tags=["shop", "databricks"],
) as shop_daily_databricks:
    DatabricksRunNowOperator(
        task_id="run_shop_daily",
        databricks_conn_id=os.environ.get(CONN_ID_ENV, "databricks_default"),
        job_name=os.environ.get(JOB_NAME_ENV, "shop_daily"),
        job_parameters={"run_date": "{{ ds }}",
                        **{name: os.environ[env] for name, env in NEW_COLUMN_PARAMETERS.items() if env in os.environ}},
    )
