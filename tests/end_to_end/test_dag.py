"""The DAGs parse cleanly and say what docs/airflow.md, docs/databricks.md and docs/pipelines.md promise
(no scheduler needed).

    pytest tests/end_to_end/test_dag.py
"""
import datetime as dt
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.airflow,
    pytest.mark.skipif(importlib.util.find_spec("airflow") is None,
                       reason="apache-airflow is not installed: make airflow-setup"),
]

DAGS = Path(__file__).resolve().parents[2] / "dags"
RUN_NOW = "airflow.providers.databricks.operators.databricks"
needs_provider = pytest.mark.skipif(
    importlib.util.find_spec("airflow.providers.databricks") is None,
    reason="apache-airflow-providers-databricks is not installed: make databricks-setup")


@pytest.fixture(scope="module")
def airflow_home(tmp_path_factory):
    """Airflow writes an airflow.cfg into AIRFLOW_HOME when imported: keep it out of ~/airflow."""
    with pytest.MonkeyPatch.context() as env:
        env.setenv("AIRFLOW_HOME", str(tmp_path_factory.mktemp("airflow_home")))
        env.setenv("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
        yield


def parse_dags():
    """A fresh parse of dags/, as the dag-processor does it: reads the environment again."""
    from airflow.dag_processing.dagbag import DagBag
    return DagBag(str(DAGS))


@pytest.fixture
def shop_daily(airflow_home, monkeypatch):
    for name in ("SHOP_HOME", "SHOP_PYTHON", "SHOP_RETRIES", "SHOP_RETRY_DELAY_SECONDS", "SHOP_SPARK_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    bag = parse_dags()
    assert str(DAGS / "shop_daily.py") not in bag.import_errors
    return bag.dags["shop_daily"]


@needs_provider
def test_dags_folder_holds_shop_daily_and_its_databricks_twin_and_parses_without_errors(airflow_home):
    bag = parse_dags()
    assert bag.import_errors == {}
    assert sorted(bag.dag_ids) == ["sdp_nightly", "shop_backfill", "shop_daily", "shop_daily_databricks", "shop_upkeep"]


def test_without_the_databricks_provider_shop_daily_still_parses_and_the_error_names_the_fix(
        airflow_home, monkeypatch):
    monkeypatch.setitem(sys.modules, RUN_NOW, None)  # what an import finds when the package is missing
    bag = parse_dags()
    assert sorted(bag.dag_ids) == ["sdp_nightly", "shop_backfill", "shop_daily", "shop_upkeep"]
    assert list(bag.import_errors) == [str(DAGS / "shop_daily_databricks.py")]
    assert "needs apache-airflow-providers-databricks: make databricks-setup" in \
        bag.import_errors[str(DAGS / "shop_daily_databricks.py")]


def test_runs_daily_at_two_utc_without_catchup_one_run_at_a_time(shop_daily):
    assert (shop_daily.timetable.expression, shop_daily.timetable.timezone.name) == ("0 2 * * *", "UTC")
    assert shop_daily.catchup is False
    assert shop_daily.max_active_runs == 1
    assert shop_daily.start_date < dt.datetime(2026, 9, 1, tzinfo=dt.timezone.utc)


def test_each_task_retries_twice_five_minutes_apart_by_default(shop_daily):
    for task in shop_daily.tasks:
        assert (task.retries, task.retry_delay) == (2, dt.timedelta(minutes=5)), task.task_id


def test_retries_and_their_delay_come_from_the_environment(airflow_home, monkeypatch):
    monkeypatch.setenv("SHOP_RETRIES", "0")
    monkeypatch.setenv("SHOP_RETRY_DELAY_SECONDS", "1")
    dag = parse_dags().dags["shop_daily"]
    assert {(t.retries, t.retry_delay) for t in dag.tasks} == {(0, dt.timedelta(seconds=1))}


def test_load_day_runs_before_check_day_which_needs_it_to_succeed(shop_daily):
    load, check = shop_daily.get_task("load_day"), shop_daily.get_task("check_day")
    assert [t.task_id for t in shop_daily.topological_sort()] == ["load_day", "check_day"]
    assert load.downstream_task_ids == {"check_day"}
    assert check.trigger_rule == "all_success"     # so a failed load leaves it upstream_failed


def test_tasks_run_the_toolkit_scripts_with_the_run_date_in_the_project_folder(shop_daily):
    project = DAGS.parent
    python = project / ".venv" / "bin" / "python"
    python = str(python) if python.exists() else sys.executable
    for task_id in ("load_day", "check_day"):
        task = shop_daily.get_task(task_id)
        assert task.bash_command == f"{python} {task_id}.py {{{{ ds }}}}"
        assert task.cwd == str(project)
        assert task.render_template(task.bash_command, {"ds": "2026-09-16"}) == \
            f"{python} {task_id}.py 2026-09-16"


def test_project_folder_and_python_come_from_the_environment(airflow_home, monkeypatch, tmp_path):
    monkeypatch.setenv("SHOP_HOME", str(tmp_path / "my shop"))
    monkeypatch.setenv("SHOP_PYTHON", "/opt/shop venv/bin/python")
    task = parse_dags().dags["shop_daily"].get_task("load_day")
    assert task.cwd == str(tmp_path / "my shop")
    assert task.bash_command == "'/opt/shop venv/bin/python' load_day.py {{ ds }}"


def test_with_a_warm_server_tasks_pass_its_address_on_at_run_time_not_in_the_command(airflow_home, monkeypatch):
    monkeypatch.setenv("SHOP_PYTHON", "python")
    monkeypatch.setenv("SHOP_SPARK_REMOTE", "sc://localhost:15002/;token=secret-token")
    task = parse_dags().dags["shop_daily"].get_task("check_day")
    assert task.bash_command == 'SPARK_REMOTE="$SHOP_SPARK_REMOTE" python check_day.py {{ ds }}'
    done = subprocess.run(["bash", "-c", task.bash_command.replace("python check_day.py {{ ds }}",
                                                                    'printenv SPARK_REMOTE')],
                          capture_output=True, text=True, env={**os.environ}, check=True)
    assert done.stdout == "sc://localhost:15002/;token=secret-token\n"


def test_the_setting_of_new_columns_set_where_airflow_runs_reaches_load_day_as_the_root_does(airflow_home, monkeypatch):
    """docs/new_columns.md: set once in the environment Airflow is started with; the load task's command
    runs in that environment (BashOperator's env is None: inherited), where load_day.py reads it."""
    monkeypatch.setenv("SHOP_PYTHON", "python")
    task = parse_dags().dags["shop_daily"].get_task("load_day")
    monkeypatch.setenv("SHOP_ON_NEW_COLUMN", "add")  # after parsing: read where the task runs, not by the DAG
    monkeypatch.setenv("SHOP_COLUMN_TYPES", "discount DECIMAL(10,2)")
    assert task.env is None
    done = subprocess.run(["bash", "-c", task.bash_command.replace("python load_day.py {{ ds }}",
                                                                    'printenv SHOP_ON_NEW_COLUMN SHOP_COLUMN_TYPES')],
                          capture_output=True, text=True, env=task.get_env({}), check=True)
    assert done.stdout == "add\ndiscount DECIMAL(10,2)\n"


@pytest.mark.parametrize("dag_file", ["shop_daily.py", "shop_upkeep.py"])
def test_parsing_the_dag_file_imports_no_spark(airflow_home, dag_file):
    # A separate interpreter: this test session may already hold pyspark for the core's tests.
    code = ("import runpy, sys; runpy.run_path(sys.argv[1]); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspark', 'delta', 'py4j')))")
    out = subprocess.run([sys.executable, "-c", code, str(DAGS / dag_file)],
                         capture_output=True, text=True, env=dict(os.environ), check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]"


@pytest.fixture
def shop_daily_databricks(airflow_home, monkeypatch):
    for name in ("SHOP_DATABRICKS_CONN_ID", "SHOP_DATABRICKS_JOB_NAME"):
        monkeypatch.delenv(name, raising=False)
    return parse_dags().dags["shop_daily_databricks"]


@needs_provider
def test_the_databricks_dag_starts_job_shop_daily_with_the_run_date_as_its_job_parameter(shop_daily_databricks):
    [task] = shop_daily_databricks.tasks
    assert type(task).__name__ == "DatabricksRunNowOperator"
    assert (task.job_name, task.databricks_conn_id, task.job_id) == ("shop_daily", "databricks_default", None)
    # The run of 21 September 02:00 UTC: Airflow's ds is its logical date's day, the job's run_date.
    logical_date = dt.datetime(2026, 9, 21, 2, tzinfo=dt.timezone.utc)
    task.render_template_fields({"ds": logical_date.strftime("%Y-%m-%d"), "logical_date": logical_date})
    assert task.job_parameters == {"run_date": "2026-09-21"}  # the job's own on_new_column, column_types


@needs_provider
def test_the_databricks_dag_passes_the_environments_setting_of_new_columns_as_the_jobs_parameters(
        airflow_home, monkeypatch):
    monkeypatch.setenv("SHOP_ON_NEW_COLUMN", "rescue")
    monkeypatch.setenv("SHOP_COLUMN_TYPES", "")
    task = parse_dags().dags["shop_daily_databricks"].get_task("run_shop_daily")
    assert task.job_parameters == {"run_date": "{{ ds }}", "on_new_column": "rescue", "column_types": ""}


@needs_provider
def test_the_databricks_dag_runs_daily_at_two_utc_one_run_at_a_time(shop_daily_databricks):
    timetable = shop_daily_databricks.timetable
    assert (timetable.expression, timetable.timezone.name) == ("0 2 * * *", "UTC")
    assert shop_daily_databricks.catchup is False
    assert shop_daily_databricks.max_active_runs == 1


@needs_provider
def test_the_databricks_connection_and_job_name_come_from_the_environment(airflow_home, monkeypatch):
    monkeypatch.setenv("SHOP_DATABRICKS_CONN_ID", "shop_workspace")
    monkeypatch.setenv("SHOP_DATABRICKS_JOB_NAME", "[dev ana] shop_daily")
    task = parse_dags().dags["shop_daily_databricks"].get_task("run_shop_daily")
    assert (task.databricks_conn_id, task.job_name) == ("shop_workspace", "[dev ana] shop_daily")


def test_sdp_nightly_runs_the_pipeline_at_three_with_the_selection_from_the_run_conf(airflow_home, monkeypatch):
    for name in ("SHOP_HOME", "SHOP_PYTHON", "SHOP_RETRIES", "SHOP_RETRY_DELAY_SECONDS"):
        monkeypatch.delenv(name, raising=False)
    dag = parse_dags().dags["sdp_nightly"]
    assert (dag.timetable.expression, dag.catchup, dag.max_active_runs) == ("0 3 * * *", False, 1)
    assert [t.task_id for t in dag.topological_sort()] == ["prepare", "selection", "run", "check"]
    run = dag.get_task("run")
    assert (type(run).__name__, run.pipeline_command, run.trigger_rule) == ("PipelinesOnTheLocalPort", "run",
                                                                           "none_failed")
    assert type(run).__mro__[1].__name__ == "SparkPipelinesOperator"
    assert run.env_vars["SPARK_REMOTE"] == "local"
    selection = dag.user_defined_filters["selection_command"]
    python = dag.get_task("prepare").bash_command.split(" ")[0]
    assert selection(None) == selection({}) == "exit 99"  # the task is then skipped
    assert selection({"full_refresh": ["orders_raw"], "refresh": "orders_by_day"}) == \
        f"{python} run_pipeline.py --full-refresh=orders_raw --refresh=orders_by_day"
    assert selection({"full_refresh_all": True}) == f"{python} run_pipeline.py --full-refresh-all"
    check = dag.get_task("check")
    from airflow.sdk.execution_time import macros
    assert check.render_template(check.bash_command, {"ds": "2026-10-01", "macros": macros}) == \
        f"{python} check_pipeline.py 2026-09 --today 2026-10-01"


def test_sdp_nightly_starts_the_pipelines_spark_as_the_prepare_task_wrote_it(airflow_home, monkeypatch, tmp_path):
    """The run task's environment is rendered when it runs, from the spark-start.json prepare wrote."""
    from shoptoolkit.engine.pipeline_setup import START_FILE
    monkeypatch.setenv("SHOP_HOME", str(tmp_path))
    started = {"SPARK_REMOTE": "local", "SPARK_DIST_CLASSPATH": "/jars/delta-spark.jar:/jars/delta-storage.jar",
               "PYSPARK_SUBMIT_ARGS": "--properties-file /p/spark-defaults.conf --conf 'spark.driver.extraJavaOptions="
                                      "-XX:TieredStopAtLevel=1 -Dderby.stream.error.file=\"/p/derby.log\"' pyspark-shell"}
    (tmp_path / "lake" / "_pipeline").mkdir(parents=True)
    (tmp_path / "lake" / "_pipeline" / START_FILE).write_text(json.dumps(started))
    dag = parse_dags().dags["sdp_nightly"]
    run = dag.get_task("run")
    rendered = run.render_template(run.env_vars, {"spark_start": dag.user_defined_macros["spark_start"]})
    assert rendered == {**started, "PYTHONPATH": str(tmp_path)}


@pytest.fixture
def shop_backfill(airflow_home, monkeypatch):
    for name in ("SHOP_HOME", "SHOP_PYTHON", "SHOP_SPARK_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SHOP_PYTHON", "/opt/shop venv/bin/python")
    bag = parse_dags()
    assert str(DAGS / "shop_backfill.py") not in bag.import_errors
    return bag.dags["shop_backfill"]


def backfill_line(dag, conf) -> str:
    """The task's shell line for a run triggered with this conf (params defaults, then the conf)."""
    task = dag.get_task("backfill")
    return task.render_template(task.bash_command, {"params": {**dag.params.dump(), **conf}})


def test_shop_backfill_runs_only_when_triggered_one_run_at_a_time_one_try(shop_backfill):
    assert type(shop_backfill.timetable).__name__ == "NullTimetable"  # schedule=None
    assert shop_backfill.max_active_runs == 1
    assert shop_backfill.params.dump() == {"first": None, "last": None, "days_per_commit": "all",
                                           "on_new_column": None, "column_types": None}
    [task] = shop_backfill.tasks
    assert (task.task_id, task.retries, task.cwd) == ("backfill", 0, str(DAGS.parent))


@pytest.mark.parametrize("conf, args", [
    ({"first": "2026-09-02", "last": "2026-10-01"}, "2026-09-02 2026-10-01 --days-per-commit all"),
    ({"first": "2026-09-21", "last": "2026-09-21", "days_per_commit": 7}, "2026-09-21 2026-09-21 --days-per-commit 7"),
    ({"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": "0"}, "2026-09-02 2026-10-01 --days-per-commit 0"),
    ({"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": " ALL "},
     "2026-09-02 2026-10-01 --days-per-commit all"),
    ({"first": "2026-09-20", "last": "2026-09-22", "on_new_column": "add", "column_types": "discount DECIMAL(10,2)"},
     "2026-09-20 2026-09-22 --days-per-commit all --on-new-column add --column-types 'discount DECIMAL(10,2)'"),
    ({"first": "2026-09-20", "last": "2026-09-22", "on_new_column": "rescue", "column_types": ""},
     "2026-09-20 2026-09-22 --days-per-commit all --on-new-column rescue"),
])
def test_shop_backfill_runs_backfill_py_with_the_range_from_the_conf(shop_backfill, conf, args):
    assert backfill_line(shop_backfill, conf) == f"'/opt/shop venv/bin/python' backfill.py {args}"


def test_shop_backfill_on_a_warm_server_passes_its_address_at_run_time(airflow_home, monkeypatch):
    monkeypatch.setenv("SHOP_PYTHON", "python")
    monkeypatch.setenv("SHOP_SPARK_REMOTE", "sc://localhost:15002/;token=secret-token")
    assert backfill_line(parse_dags().dags["shop_backfill"], {"first": "2026-09-02", "last": "2026-09-03"}) == \
        'SPARK_REMOTE="$SHOP_SPARK_REMOTE" python backfill.py 2026-09-02 2026-09-03 --days-per-commit all'


TRIGGER = """trigger with --conf '{"first": "YYYY-MM-DD", "last": "YYYY-MM-DD"}'"""


@pytest.mark.parametrize("conf, error", [
    ({}, f"param 'first' is missing: {TRIGGER}"),
    ({"first": "2026-09-02"}, f"param 'last' is missing: {TRIGGER}"),
    ({"first": "2026-9-2", "last": "2026-10-01"}, f'param \'first\' is "2026-9-2", not a date YYYY-MM-DD: {TRIGGER}'),
    ({"first": "2026-09-02", "last": 20261001}, f"param 'last' is 20261001, not a date YYYY-MM-DD: {TRIGGER}"),
    ({"first": "2026-02-30", "last": "2026-03-01"}, 'param \'first\' is "2026-02-30", not a calendar date'),
    ({"first": "2026-10-02", "last": "2026-10-01"}, "param 'first' 2026-10-02 is after param 'last' 2026-10-01"),
    ({"first": "2025-09-02", "last": "2026-10-01"},
     "params 'first' 2025-09-02 .. 'last' 2026-10-01 are 395 runs, more than a year (366): "
     "trigger a year at most at a time"),
    ({"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": -1},
     "param 'days_per_commit' is -1: give a whole number >= 1, or 0 or \"all\" for the whole range in one commit"),
    ({"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": True},
     "param 'days_per_commit' is true: give a whole number >= 1, or 0 or \"all\" for the whole range in one commit"),
    ({"first": "2026-09-02", "last": "2026-10-01", "on_new_column": "merge"},
     "param 'on_new_column' is \"merge\": give fail, add or rescue"),
    ({"first": "2026-09-02", "last": "2026-10-01", "column_types": ["discount DECIMAL(10,2)"]},
     "param 'column_types' is [\"discount DECIMAL(10,2)\"], not a text like \"discount DECIMAL(10,2)\""),
])
def test_a_bad_or_missing_param_fails_the_task_with_one_line_before_any_spark(shop_backfill, conf, error,
                                                                            tmp_path):
    done = subprocess.run(["bash", "-c", backfill_line(shop_backfill, conf)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {error}\n")


def test_a_param_cannot_reach_the_shell_as_a_command(shop_backfill, tmp_path):
    conf = {"first": "2026-09-02'; touch injected; echo '", "last": "$(touch injected)"}
    done = subprocess.run(["bash", "-c", backfill_line(shop_backfill, conf)], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == f"error: param 'first' is \"2026-09-02'; touch injected; echo '\", not a date " \
                          f"YYYY-MM-DD: {TRIGGER}\n"
    assert list(tmp_path.iterdir()) == []


def test_shop_backfill_takes_as_many_runs_as_backfill_py_takes_without_allow_long(shop_backfill):
    from shoptoolkit.run_args import MAX_RUNS
    last = dt.date(2026, 10, 1)
    longest = str(last - dt.timedelta(days=MAX_RUNS - 1))
    assert backfill_line(shop_backfill, {"first": longest, "last": str(last)}) == \
        f"'/opt/shop venv/bin/python' backfill.py {longest} 2026-10-01 --days-per-commit all"
    too_long = str(last - dt.timedelta(days=MAX_RUNS))
    assert backfill_line(shop_backfill, {"first": too_long, "last": str(last)}).endswith(" >&2; exit 2")
