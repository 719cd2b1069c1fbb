"""shop_upkeep (dags/shop_upkeep.py) parses and says what docs/airflow.md promises (no scheduler needed);
test_dag.py checks that it parses without errors and imports no Spark, with the other DAGs.

    pytest tests/end_to_end/test_upkeep_dag.py
"""
import datetime as dt
import sys

import pytest

from test_dag import DAGS, airflow_home, parse_dags, pytestmark  # noqa: F401  (airflow_home: a fixture)


@pytest.fixture
def shop_upkeep(airflow_home, monkeypatch):  # noqa: F811
    for name in ("SHOP_HOME", "SHOP_PYTHON", "SHOP_RETRIES", "SHOP_RETRY_DELAY_SECONDS", "SHOP_SPARK_REMOTE"):
        monkeypatch.delenv(name, raising=False)
    bag = parse_dags()
    assert str(DAGS / "shop_upkeep.py") not in bag.import_errors
    return bag.dags["shop_upkeep"]


def test_shop_upkeep_runs_monthly_on_the_first_at_four_utc_without_catchup_one_run_at_a_time(shop_upkeep):
    assert (shop_upkeep.timetable.expression, shop_upkeep.timetable.timezone.name) == ("0 4 1 * *", "UTC")
    assert shop_upkeep.catchup is False
    assert shop_upkeep.max_active_runs == 1
    [task] = shop_upkeep.tasks
    assert (task.task_id, task.retries, task.retry_delay) == ("upkeep", 2, dt.timedelta(minutes=5))
    assert task.skip_on_exit_code == []  # None given: every non-zero exit fails it, 99 too


def test_the_run_of_the_first_has_that_day_as_its_run_date_so_the_month_before_is_compacted(shop_upkeep):
    """A cron schedule is a trigger in Airflow 3: the run at 1 November 04:00 has that logical date, so
    {{ ds }} is 2026-11-01 and upkeep.py compacts October (not 2026-10-01, which would leave October)."""
    from airflow.serialization.encoders import coerce_to_core_timetable  # the scheduler's own timetable
    from airflow.timetables.base import TimeRestriction
    mid_october = dt.datetime(2026, 10, 15, tzinfo=dt.timezone.utc)
    run = coerce_to_core_timetable(shop_upkeep.timetable).next_dagrun_info(
        last_automated_data_interval=None, restriction=TimeRestriction(earliest=mid_october, latest=None, catchup=True))
    assert run.logical_date == dt.datetime(2026, 11, 1, 4, tzinfo=dt.timezone.utc)
    assert run.logical_date.strftime("%Y-%m-%d") == "2026-11-01"


def test_the_upkeep_task_runs_upkeep_py_with_the_run_date_in_the_project_folder(shop_upkeep):
    project = DAGS.parent
    python = project / ".venv" / "bin" / "python"
    python = str(python) if python.exists() else sys.executable
    task = shop_upkeep.get_task("upkeep")
    assert task.bash_command == f"{python} upkeep.py --today {{{{ ds }}}}"
    assert task.cwd == str(project)
    assert task.render_template(task.bash_command, {"ds": "2026-11-01"}) == f"{python} upkeep.py --today 2026-11-01"


def test_shop_upkeeps_project_folder_and_python_come_from_the_environment(airflow_home, monkeypatch,  # noqa: F811
                                                                          tmp_path):
    monkeypatch.setenv("SHOP_HOME", str(tmp_path / "my shop"))
    monkeypatch.setenv("SHOP_PYTHON", "/opt/shop venv/bin/python")
    task = parse_dags().dags["shop_upkeep"].get_task("upkeep")
    assert task.cwd == str(tmp_path / "my shop")
    assert task.bash_command == "'/opt/shop venv/bin/python' upkeep.py --today {{ ds }}"


def test_shop_upkeep_on_a_warm_server_passes_its_address_at_run_time(airflow_home, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SHOP_PYTHON", "python")
    monkeypatch.setenv("SHOP_SPARK_REMOTE", "sc://localhost:15002/;token=secret-token")
    task = parse_dags().dags["shop_upkeep"].get_task("upkeep")
    assert task.bash_command == 'SPARK_REMOTE="$SHOP_SPARK_REMOTE" python upkeep.py --today {{ ds }}'
