"""databricks.yml builds with databricks-bundles' model and wires the job as docs/databricks.md says.

    pytest tests/end_to_end/test_databricks_bundle.py        # no Spark, no workspace
"""
import copy
import importlib.util
import os
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("databricks.bundles") is None,
                                reason="databricks-bundles is not installed: make databricks-setup")

from bundle import (BUNDLE, build_job, build_pipeline, job_parameters, job_task_argv, load, task_argv,  # noqa: E402
                    unknown_keys)


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
    assert list(jobs) == ["shop_daily", "shop_backfill", "shop_upkeep", "sdp_nightly", "sdp_full_refresh"]
    for name, settings in jobs.items():
        assert build_job(name, settings).name == name
    assert list(bundle["resources"]["pipelines"]) == ["shop_orders"]
    assert build_pipeline("shop_orders", bundle["resources"]["pipelines"]["shop_orders"]).name == "shop_orders"


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
    assert [(p.name, str(p.default)) for p in job.parameters] == [("run_date", "{{job.trigger.time.iso_date}}"),
                                                                  *NEW_COLUMN_PARAMETERS]
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
        loads = ["--on-new-column", "fail", "--column-types", ""] if task["task_key"] == "load_day" else []
        assert argv[1:] == ["2026-09-21", "--root", "/Volumes/shop/dev/orders", *loads]


# What a load does with a new column (docs/new_columns.md): set once, as the bundle's variables, which are
# the defaults of both loading jobs' parameters; a Run now with different parameters sets it for one run.
NEW_COLUMN_PARAMETERS = [("on_new_column", "${var.on_new_column}"), ("column_types", "${var.column_types}")]


def test_the_new_column_setting_is_a_variable_that_both_loading_jobs_pass_to_their_scripts(bundle):
    assert {name: bundle["variables"][name]["default"] for name in ("on_new_column", "column_types")} == {
        "on_new_column": "fail", "column_types": ""}
    jobs = bundle["resources"]["jobs"]
    for name in ("shop_daily", "shop_backfill"):
        assert [(p.name, str(p.default)) for p in build_job(name, jobs[name]).parameters][-2:] == NEW_COLUMN_PARAMETERS
    passing = {(job, task["task_key"]) for job, settings in jobs.items() for task in settings["tasks"]
               if "{{job.parameters.on_new_column}}" in task.get("spark_python_task", {}).get("parameters", [])}
    assert passing == {("shop_daily", "load_day"), ("shop_backfill", "backfill")}  # the two tasks that load


@pytest.mark.parametrize("given, setting", [
    ({}, ("fail", "")),
    ({"on_new_column": "add", "column_types": "discount DECIMAL(10,2), opened DATE"},
     ("add", "discount DECIMAL(10,2), opened DATE")),
])
def test_load_day_takes_the_setting_from_the_load_tasks_argv(shop_daily, tmp_path, monkeypatch, given, setting):
    """No Spark: load_day.py's argument parsing sets the run's setting (SHOP_ON_NEW_COLUMN, SHOP_COLUMN_TYPES)."""
    from load_day import parse_args
    from shoptoolkit.till.new_columns import from_env
    [task] = [task for task in shop_daily["tasks"] if task["task_key"] == "load_day"]
    argv = task_argv(task, "2026-09-21", {"shop_root": tmp_path}, **given)
    monkeypatch.setattr(sys, "argv", argv)
    assert str(parse_args(argv[1:]).run_date) == "2026-09-21"
    assert (from_env().mode, os.environ["SHOP_COLUMN_TYPES"]) == setting


def test_a_bad_setting_in_a_run_now_is_load_day_py_s_usage_error_before_any_spark(shop_daily, tmp_path, capsys,
                                                                                   monkeypatch):
    from load_day import parse_args
    [task] = [task for task in shop_daily["tasks"] if task["task_key"] == "load_day"]
    argv = task_argv(task, "2026-09-21", {"shop_root": tmp_path}, on_new_column="merge")
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as done:
        parse_args(argv[1:])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == ("load_day.py: error: argument --on-new-column: invalid "
                                                        "choice: 'merge' (choose from 'fail', 'add', 'rescue')")


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
    assert [(p.name, str(p.default)) for p in job.parameters] == [
        ("first", ""), ("last", ""), ("days_per_commit", "all"), *NEW_COLUMN_PARAMETERS]
    assert (job.schedule, job.trigger, job.max_concurrent_runs) == (None, None, 1)
    [task] = job.tasks
    assert (task.task_key, task.max_retries, task.depends_on) == ("backfill", None, [])


def test_the_backfill_job_runs_on_the_daily_jobs_cluster(bundle, shop_backfill):
    assert shop_backfill["job_clusters"] == bundle["resources"]["jobs"]["shop_daily"]["job_clusters"]


def test_the_backfill_task_runs_backfill_py_with_the_range_and_the_root(shop_backfill):
    [task] = shop_backfill["tasks"]
    variables = {"shop_root": "/Volumes/shop/dev/orders"}
    argv = job_task_argv(task, job_parameters("shop_backfill", variables, first="2026-09-02", last="2026-10-01",
                                              on_new_column="rescue"), variables)
    assert Path(argv[0]) == BUNDLE.parent / "backfill.py"
    assert Path(argv[0]).is_file()
    assert argv[1:] == ["2026-09-02", "2026-10-01", "--days-per-commit", "all", "--root", "/Volumes/shop/dev/orders",
                        "--on-new-column", "rescue", "--column-types", ""]


def test_backfill_py_reads_the_backfill_tasks_argv_and_refuses_an_empty_range(shop_backfill, tmp_path, capsys,
                                                                              monkeypatch):
    """No Spark: only backfill.py's argument parsing, with sys.argv as the cluster gives it."""
    from backfill import parse_args
    [task] = shop_backfill["tasks"]
    argv = job_task_argv(task, job_parameters("shop_backfill", {}, first="2026-09-02", last="2026-10-01"),
                         {"shop_root": tmp_path})
    monkeypatch.setattr(sys, "argv", argv)
    args = parse_args(argv[1:])
    assert (str(args.first), str(args.last), args.days_per_commit, args.on_new_column) == (
        "2026-09-02", "2026-10-01", 0, "fail")
    argv = job_task_argv(task, job_parameters("shop_backfill", {}), {"shop_root": tmp_path})  # Run now without first, last
    monkeypatch.setattr(sys, "argv", argv)
    with pytest.raises(SystemExit) as done:
        parse_args(argv[1:])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == \
        "backfill.py: error: argument first: '' is not a date in the form YYYY-MM-DD"


# The pipeline and its two jobs (docs/databricks.md): as the course's page on scheduling an SDP pipeline.
PIPELINE_ID = "${resources.pipelines.shop_orders.id}"


@pytest.fixture(scope="module")
def shop_orders(bundle):
    return bundle["resources"]["pipelines"]["shop_orders"]


@pytest.mark.parametrize("part, break_it, refused", [
    ("pipeline", lambda p: p.update(librarys=[]), "Unexpected field 'librarys' for class Pipeline"),
    ("pipeline", lambda p: p["libraries"][0]["glob"].update(includes="x"), "Unexpected field 'includes' for class PathPattern"),
    ("pipeline", lambda p: p.update(configuration=["spark.shop.landing"]), "Unexpected type"),
    ("pipeline", lambda p: p.update(catalog=["shop"]), "pipelines.shop_orders.catalog: a list given"),
    ("sdp_nightly", lambda j: j["tasks"][0]["pipeline_task"].update(full_refesh=True),
     "Unexpected field 'full_refesh' for class PipelineTask"),
    ("sdp_nightly", lambda j: j["tasks"][0]["pipeline_task"].update(full_refresh="maybe"), "Unexpected type"),
    ("sdp_nightly", lambda j: j["tasks"][0]["pipeline_task"].pop("pipeline_id"), "pipeline_id"),
    ("sdp_full_refresh", lambda j: j["tasks"][0]["condition_task"].update(op="EQUALS"),
     "'EQUALS' is not a valid ConditionTaskOp"),
    ("sdp_full_refresh", lambda j: j["tasks"][2]["pipeline_task"].update(full_refresh_selection="orders_raw"),
     "Unexpected type"),
])
def test_a_broken_copy_of_the_pipeline_or_its_jobs_is_refused(bundle, part, break_it, refused):
    broken = copy.deepcopy(bundle["resources"]["pipelines"]["shop_orders"] if part == "pipeline"
                           else bundle["resources"]["jobs"][part])
    break_it(broken)
    with pytest.raises((ValueError, TypeError)) as error:
        build_pipeline("shop_orders", broken) if part == "pipeline" else build_job(part, broken)
    assert refused in str(error.value)


def test_sdp_nightly_is_one_scheduled_incremental_pipeline_task_on_the_bundles_pipeline(bundle):
    job = build_job("sdp_nightly", bundle["resources"]["jobs"]["sdp_nightly"])
    assert (job.schedule.quartz_cron_expression, job.schedule.timezone_id) == ("0 30 2 * * ?", "UTC")
    assert str(job.schedule.pause_status) == "${var.schedule_pause_status}"
    assert [(task.task_key, str(task.pipeline_task.pipeline_id), task.pipeline_task.full_refresh) for task in job.tasks] == [
        ("refresh", PIPELINE_ID, False)]
    assert job.max_concurrent_runs == 1


def test_sdp_full_refresh_resets_all_tables_or_the_one_named_in_its_parameter(bundle):
    job = build_job("sdp_full_refresh", bundle["resources"]["jobs"]["sdp_full_refresh"])
    assert [(p.name, p.default) for p in job.parameters] == [("tables", "all")]
    assert job.schedule is None
    tasks = tasks_by_key(job)
    condition = tasks["every_table"].condition_task
    assert (condition.left, condition.op.value, condition.right) == ("{{job.parameters.tables}}", "EQUAL_TO", "all")
    every, selected = tasks["full_refresh_all"], tasks["full_refresh_selected"]
    assert [(d.task_key, d.outcome) for d in every.depends_on] == [("every_table", "true")]
    assert [(d.task_key, d.outcome) for d in selected.depends_on] == [("every_table", "false")]
    assert (str(every.pipeline_task.pipeline_id), every.pipeline_task.full_refresh) == (PIPELINE_ID, True)
    assert (str(selected.pipeline_task.pipeline_id), selected.pipeline_task.full_refresh_selection) == (
        PIPELINE_ID, ["{{job.parameters.tables}}"])


def test_the_pipeline_runs_the_projects_source_with_its_specs_settings_below_the_root(shop_orders):
    import yaml
    spec = yaml.safe_load((BUNDLE.parent / "pipelines" / "spark-pipeline.yml").read_text())
    includes = [library["glob"]["include"] for library in shop_orders["libraries"]]
    assert includes == ["pipelines/" + library["glob"]["include"] for library in spec["libraries"]]
    assert [path for path in includes if not (BUNDLE.parent / path).is_file()] == []
    shop_settings = {key: value for key, value in spec["configuration"].items() if key.startswith("spark.shop.")}
    assert sorted(shop_orders["configuration"]) == sorted(shop_settings)
    assert shop_orders["configuration"] == {**shop_settings, "spark.shop.landing": "${var.shop_root}/landing/orders",
                                            "spark.shop.raw.reset_allowed": "${var.raw_reset_allowed}"}
    assert (shop_orders["root_path"], shop_orders["catalog"], shop_orders["schema"]) == (
        "${workspace.file_path}", "${var.catalog}", "${var.schema}")


def test_pipelines_reset_allowed_on_orders_raw_is_a_bundle_variable(bundle):
    """orders.py puts spark.shop.raw.reset_allowed into orders_raw's table property pipelines.reset.allowed."""
    assert bundle["variables"]["raw_reset_allowed"]["default"] == "true"
    source = (BUNDLE.parent / "pipelines" / "orders.py").read_text()
    assert 'RESET_ALLOWED = setting("spark.shop.raw.reset_allowed", "true")' in source
    assert 'table_properties={"pipelines.reset.allowed": RESET_ALLOWED}' in source
    assert "SLOT" not in BUNDLE.read_text()
