"""databricks.yml builds with databricks-bundles' model and wires the job as docs/databricks.md says.

    pytest tests/test_databricks_bundle.py        # no Spark, no workspace
"""
import copy
import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("databricks.bundles") is None,
                                reason="databricks-bundles is not installed: make databricks-setup")

from bundle import BUNDLE, build_job, job_task_argv, load, task_argv, unknown_keys  # noqa: E402


@pytest.fixture(scope="module")
def bundle():
    return load()


@pytest.fixture(scope="module")
def shop_daily(bundle):
    return bundle["resources"]["jobs"]["shop_daily"]


def tasks_by_key(job) -> dict:
    return {task.task_key: task for task in job.tasks}


def test_every_job_builds_with_the_bundle_model_and_every_key_is_known(bundle):
    assert unknown_keys(bundle) == []
    jobs = bundle["resources"]["jobs"]
    assert list(jobs) == ["shop_daily", "shop_backfill"]  # sdp_nightly waits, commented out, for the pipeline
    for name, settings in jobs.items():
        assert build_job(name, settings).name == name


@pytest.mark.parametrize("break_it, refused", [
    (lambda job: job["tasks"][0].update(max_retry=2), "Unexpected field 'max_retry' for class Task"),
    (lambda job: job["tasks"][1]["spark_python_task"].update(python_fille="check_day.py"),
     "Unexpected field 'python_fille' for class SparkPythonTask"),
    (lambda job: job.update(max_concurent_runs=1), "Unexpected field 'max_concurent_runs' for class Job"),
    (lambda job: job.update(max_concurrent_runs="one"), "invalid literal for int() with base 10: 'one'"),
    (lambda job: job["tasks"][2].update(run_if="WHEN_FAILED"), "'WHEN_FAILED' is not a valid RunIf"),
    (lambda job: job.update(schedule="0 0 2 * * ?"), "Unexpected type"),
    # The two the model alone lets through, turned into text or keys; shape_problems catches them.
    (lambda job: job["tasks"][0]["spark_python_task"].update(python_file=["load_day.py"]),
     "spark_python_task.python_file: a list given"),
    (lambda job: job["tasks"][0]["spark_python_task"].update(parameters={"run_date": "x"}),
     "spark_python_task.parameters: a mapping given"),
])
def test_a_misspelled_key_or_a_wrong_type_is_refused(shop_daily, break_it, refused):
    broken = copy.deepcopy(shop_daily)
    break_it(broken)
    with pytest.raises(ValueError) as error:
        build_job("shop_daily", broken)
    assert refused in str(error.value)


def test_an_unknown_key_at_the_root_in_a_target_or_a_variable_is_named(bundle):
    broken = copy.deepcopy(bundle)
    broken["resource"] = {}
    broken["targets"]["prod"]["modes"] = "production"
    broken["variables"]["shop_root"]["defaults"] = "/Volumes/x"
    assert unknown_keys(broken) == ["resource (bundle root)", "targets.prod.modes", "variables.shop_root.defaults"]


def test_run_date_defaults_to_the_trigger_date_and_one_run_at_a_time_at_two_utc(shop_daily):
    job = build_job("shop_daily", shop_daily)
    assert [(p.name, p.default) for p in job.parameters] == [("run_date", "{{job.trigger.time.iso_date}}")]
    assert (job.schedule.quartz_cron_expression, job.schedule.timezone_id) == ("0 0 2 * * ?", "UTC")
    assert job.max_concurrent_runs == 1


def test_load_then_check_each_retried_twice_five_minutes_apart(shop_daily):
    tasks = tasks_by_key(build_job("shop_daily", shop_daily))
    assert [d.task_key for d in tasks["check_day"].depends_on] == ["load_day"]
    assert tasks["load_day"].depends_on == []
    for key in ("load_day", "check_day"):
        assert (tasks[key].max_retries, tasks[key].min_retry_interval_millis) == (2, 5 * 60 * 1000)
        assert tasks[key].run_if is None  # the default, ALL_SUCCESS: check_day waits for a good load


def test_the_failed_day_is_reported_only_when_a_task_failed(shop_daily):
    from databricks.bundles.jobs import RunIf
    report = tasks_by_key(build_job("shop_daily", shop_daily))["failed_day"]
    assert report.run_if == RunIf.AT_LEAST_ONE_FAILED
    assert [d.task_key for d in report.depends_on] == ["load_day", "check_day"]
    assert report.max_retries is None  # nothing to gain from saying it again


def test_each_task_runs_a_toolkit_file_with_the_run_date_and_the_root(shop_daily):
    for task in shop_daily["tasks"]:
        argv = task_argv(task, "2026-09-21", {"shop_root": "/Volumes/shop/dev/orders"})
        assert Path(argv[0]) == BUNDLE.parent / f"{task['task_key']}.py"
        assert Path(argv[0]).is_file()
        assert argv[1:] == ["2026-09-21", "--root", "/Volumes/shop/dev/orders"]


def test_the_root_is_a_volume_in_dev_and_in_prod(bundle):
    assert bundle["variables"]["shop_root"]["default"] == "/Volumes/shop/dev/orders"
    assert bundle["targets"]["prod"]["variables"]["shop_root"] == "/Volumes/shop/prod/orders"
    assert {name: target["mode"] for name, target in bundle["targets"].items()} == \
        {"dev": "development", "prod": "production"}
    assert bundle["targets"]["dev"]["default"] is True


@pytest.fixture(scope="module")
def shop_backfill(bundle):
    return bundle["resources"]["jobs"]["shop_backfill"]


def test_the_backfill_job_runs_on_demand_one_at_a_time_with_the_range_as_job_parameters(shop_backfill):
    job = build_job("shop_backfill", shop_backfill)
    assert [(p.name, p.default) for p in job.parameters] == [("first", ""), ("last", ""), ("days_per_commit", "all")]
    assert (job.schedule, job.trigger, job.max_concurrent_runs) == (None, None, 1)
    [task] = job.tasks
    assert (task.task_key, task.max_retries, task.depends_on) == ("backfill", None, [])


def test_the_backfill_job_runs_on_the_daily_jobs_cluster(bundle, shop_backfill):
    assert shop_backfill["job_clusters"] == bundle["resources"]["jobs"]["shop_daily"]["job_clusters"]


def test_the_backfill_task_runs_backfill_py_with_the_range_and_the_root(shop_backfill):
    [task] = shop_backfill["tasks"]
    argv = job_task_argv(task, {"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": "all"},
                         {"shop_root": "/Volumes/shop/dev/orders"})
    assert Path(argv[0]) == BUNDLE.parent / "backfill.py"
    assert Path(argv[0]).is_file()
    assert argv[1:] == ["2026-09-02", "2026-10-01", "--days-per-commit", "all", "--root", "/Volumes/shop/dev/orders"]


def test_backfill_py_reads_the_backfill_tasks_argv_and_refuses_an_empty_range(shop_backfill, tmp_path, capsys,
                                                                              monkeypatch):
    """No Spark: only backfill.py's argument parsing, with sys.argv as the cluster gives it."""
    from backfill import parse_args
    [task] = shop_backfill["tasks"]
    argv = job_task_argv(task, {"first": "2026-09-02", "last": "2026-10-01", "days_per_commit": "all"},
                         {"shop_root": tmp_path})
    monkeypatch.setattr(sys, "argv", argv)
    args = parse_args(argv[1:])
    assert (str(args.first), str(args.last), args.days_per_commit) == ("2026-09-02", "2026-10-01", 0)
    defaults = {p["name"]: p["default"] for p in shop_backfill["parameters"]}  # Run now without first, last
    argv = job_task_argv(task, defaults, {"shop_root": tmp_path})
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as done:
        parse_args(argv[1:])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        "backfill.py: error: argument first: '' is not a date in the form YYYY-MM-DD"
