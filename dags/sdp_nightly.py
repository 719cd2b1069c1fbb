"""sdp_nightly: every day at 03:00 UTC, run the shop's Spark Declarative Pipeline, then check its month.

    source dags/airflow_env.sh && shop_airflow_start        # walkthrough: docs/pipelines.md

    prepare  ->  selection  ->  run  ->  check

prepare    python run_pipeline.py --prepare: the run's spec (pipelines/.spark-pipeline.prepared.yml),
           lake/_pipeline/conf/ (Delta's SQL settings and the Derby catalog in spark-defaults.conf) and
           lake/_pipeline/spark-start.json (how the pipeline's Spark starts); no Spark. A landing file
           whose header is not the till's (a new column: docs/new_columns.md) fails it in one line
selection  the refresh selection in the DAG run's conf, as `python run_pipeline.py --full-refresh ...`
           (the operator has no refresh options), e.g. {"full_refresh": ["orders_raw"]},
           {"refresh": ["orders_by_day"]} or {"full_refresh_all": true}; skipped when the conf has none
run        SparkPipelinesOperator, pipeline_command "run": the incremental update. After a selection it
           also brings what the selection left out up to date (--full-refresh orders_raw alone does not
           recompute orders_by_day), so {"full_refresh": ["orders_raw"]} picks up a late order.
check      python check_pipeline.py MONTH --today {{ ds }}: orders_by_day against the files

There is no dry-run task: it would cost each night one more Spark start (about 13 s here). Check a
changed definition before it goes in with `python run_pipeline.py --dry-run` (docs/pipelines.md).

The pipeline has no run date: every run, scheduled or backfilled, runs the same command and reads the
files no run has read yet; a run's date only picks the month its check looks at.

The operator runs in its Spark Connect mode. In its spark-submit mode (a `spark` connection) the
provider's hook always passes --master, and spark-pipelines adds --remote local, which spark-submit
refuses ("Remote cannot be specified with master and/or deploy mode"). With a `spark_connect`
connection the hook runs `python -m pyspark.pipelines.cli` (Airflow's own Python, the project's .venv
here) with SPARK_REMOTE set; env_vars sets it to `local`, so the CLI starts its own local Connect server,
as run_pipeline.py does: env_vars also carries spark-start.json's PYSPARK_SUBMIT_ARGS (the settings, the
class archive) and SPARK_DIST_CLASSPATH (Delta's JARs). The connection itself is not dialled:
    export AIRFLOW_CONN_SHOP_SDP='{"conn_type": "spark_connect", "host": "localhost"}'

Settings from the environment, as in dags/shop_daily.py: SHOP_HOME, SHOP_PYTHON, SHOP_RETRIES,
SHOP_RETRY_DELAY_SECONDS; SHOP_SDP_CONN names the connection (default shop_sdp).
"""
import datetime as dt
import json
import os
import shlex
import sys
from pathlib import Path

from airflow.providers.apache.spark.operators.spark_pipelines import SparkPipelinesOperator
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG

sys.path.insert(0, str(Path(__file__).resolve().parent))  # shop_settings.py, beside this file
from shop_settings import default_args, project_home, project_python  # noqa: E402

RUN_DATE = "{{ ds }}"
# The month of the day a run on ds loads (D-1): a run on 2026-10-01 checks September.
CHECKED_MONTH = "{{ macros.ds_format(macros.ds_add(ds, -1), '%Y-%m-%d', '%Y-%m') }}"
PREPARED_SPEC = Path("pipelines") / ".spark-pipeline.prepared.yml"  # pipeline_setup.PREPARED
SPARK_START = Path("lake") / "_pipeline" / "spark-start.json"  # pipeline_setup.START_FILE


def conf_names(conf: dict, key: str) -> list:
    """A selection from the run's conf: a list of names, or one comma-separated string."""
    value = conf.get(key) or []
    return [name for part in ([value] if isinstance(value, str) else value) for name in str(part).split(",")]


def selection_command(conf, python: str) -> str:
    """The shell line of a run's refresh selection, quoted; `exit 99` (the task is skipped) for none."""
    conf = conf or {}
    args = [f"--full-refresh={name}" for name in conf_names(conf, "full_refresh")]
    args += [f"--refresh={name}" for name in conf_names(conf, "refresh")]
    args += ["--full-refresh-all"] if conf.get("full_refresh_all") else []
    if not args:
        return "exit 99"
    return " ".join(shlex.quote(part) for part in [python, "run_pipeline.py", *args])


def spark_start(home: Path, key: str) -> str:
    """A value of lake/_pipeline/spark-start.json, which the prepare task wrote: read as the run task starts."""
    return json.loads((home / SPARK_START).read_text())[key]


def operator_env(home: Path) -> dict:
    """spark-pipelines' environment under the operator: its Spark started as run_pipeline.py starts it
    (SPARK_REMOTE=local: a local Connect server of its own; Delta's JARs, the settings, the class
    archive: spark-start.json's values, rendered when the task runs), the toolkit's folder on
    PYTHONPATH (pipelines/orders.py imports shoptoolkit.table_schema)."""
    started = {key: "{{ spark_start('%s') }}" % key for key in ("PYSPARK_SUBMIT_ARGS", "SPARK_DIST_CLASSPATH")}
    return {"SPARK_REMOTE": "local", **started, "PYTHONPATH": str(home)}


def toolkit_task(dag: DAG, task_id: str, command: str, home: Path, **kwargs) -> BashOperator:
    return BashOperator(task_id=task_id, bash_command=command, cwd=str(home), dag=dag, **kwargs)


class PipelinesOnTheLocalPort(SparkPipelinesOperator):
    """The provider's operator, holding the machine's lock on spark-pipelines' one local port while its
    CLI runs, as run_pipeline.py does (shoptoolkit/engine/pipeline_port.py): a pipeline run of another folder
    waits for it instead of failing to bind the port."""

    def execute(self, context):
        home = project_home()
        sys.path.insert(0, str(home))  # the toolkit's package, imported here only: DAG parsing stays light
        from shoptoolkit.engine.pipeline_port import local_port
        with local_port(f"{home}: Airflow sdp_nightly {context['run_id']}", show=self.log.info):
            return super().execute(context)


def pipeline_task(dag: DAG, task_id: str, command: str, home: Path, **kwargs) -> SparkPipelinesOperator:
    return PipelinesOnTheLocalPort(
        task_id=task_id,
        pipeline_command=command,
        pipeline_spec=str(home / PREPARED_SPEC),
        conn_id=os.environ.get("SHOP_SDP_CONN", "shop_sdp"),
        env_vars=operator_env(home),
        dag=dag,
        **kwargs,
    )


home = project_home()
python = project_python(home)

with DAG(
    dag_id="sdp_nightly",
    description="Run the shop's Spark Declarative Pipeline, then check orders_by_day against the files",
    schedule="0 3 * * *",       # after shop_daily's 02:00: two Spark JVMs at once halve each other's speed
    start_date=dt.datetime(2026, 8, 1, tzinfo=dt.timezone.utc),
    catchup=False,              # history is run on purpose, with `airflow backfill create`
    max_active_runs=1,          # one pipeline at a time: Derby admits one process, the Connect port is fixed
    default_args=default_args(),
    user_defined_filters={"selection_command": lambda conf: selection_command(conf, python)},
    user_defined_macros={"spark_start": lambda key: spark_start(home, key)},
    tags=["shop", "sdp"],
) as sdp_nightly:
    prepare = toolkit_task(sdp_nightly, "prepare", f"{shlex.quote(python)} run_pipeline.py --prepare", home,
                           skip_on_exit_code=None)
    # Exit 99 (no selection in the conf) skips the task; any other non-zero exit fails it.
    selection = toolkit_task(sdp_nightly, "selection", "{{ dag_run.conf | selection_command }}", home)
    run = pipeline_task(sdp_nightly, "run", "run", home, trigger_rule="none_failed")
    check = toolkit_task(sdp_nightly, "check",
                         f"{shlex.quote(python)} check_pipeline.py {CHECKED_MONTH} --today {RUN_DATE}", home,
                         skip_on_exit_code=None)
    prepare >> selection >> run >> check
