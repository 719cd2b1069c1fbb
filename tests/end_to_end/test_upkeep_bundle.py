"""databricks.yml's job shop_upkeep is wired as docs/databricks.md says (test_databricks_bundle.py builds it
with the bundle's model, with every other job, and names its keys).

    pytest tests/end_to_end/test_upkeep_bundle.py        # no Spark, no workspace
"""
import importlib.util
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("databricks.bundles") is None,
                                reason="databricks-bundles is not installed: make databricks-setup")

from bundle import BUNDLE, build_job, job_task_argv  # noqa: E402
from test_databricks_bundle import bundle  # noqa: E402,F401  (the fixture: databricks.yml as loaded)


@pytest.fixture(scope="module")
def shop_upkeep(bundle):  # noqa: F811
    return bundle["resources"]["jobs"]["shop_upkeep"]


def test_the_upkeep_job_runs_on_the_first_at_four_utc_one_at_a_time_with_the_trigger_date(shop_upkeep):
    job = build_job("shop_upkeep", shop_upkeep)
    assert (job.schedule.quartz_cron_expression, job.schedule.timezone_id) == ("0 0 4 1 * ?", "UTC")
    assert str(job.schedule.pause_status) == "${var.schedule_pause_status}"  # as shop_daily's
    assert [(p.name, p.default) for p in job.parameters] == [("today", "{{job.trigger.time.iso_date}}")]
    assert job.max_concurrent_runs == 1
    [task] = job.tasks
    assert (task.task_key, task.depends_on) == ("upkeep", [])
    assert (task.max_retries, task.min_retry_interval_millis) == (2, 5 * 60 * 1000)  # as the Airflow DAG's


def test_the_upkeep_job_runs_on_the_daily_jobs_cluster(bundle, shop_upkeep):  # noqa: F811
    assert shop_upkeep["job_clusters"] == bundle["resources"]["jobs"]["shop_daily"]["job_clusters"]
    assert shop_upkeep["tasks"][0]["job_cluster_key"] == "shop"


def test_the_upkeep_task_runs_upkeep_py_with_the_trigger_date_and_the_root(shop_upkeep):
    [task] = shop_upkeep["tasks"]
    argv = job_task_argv(task, {"today": "2026-11-01"}, {"shop_root": "/Volumes/shop/dev/orders"})
    assert Path(argv[0]) == BUNDLE.parent / "upkeep.py"
    assert Path(argv[0]).is_file()
    assert argv[1:] == ["--today", "2026-11-01", "--root", "/Volumes/shop/dev/orders"]


def test_upkeep_py_reads_the_upkeep_tasks_argv(shop_upkeep, tmp_path):
    """No Spark: only upkeep.py's argument parsing, with the argv the cluster gives it."""
    from upkeep import parse_args
    [task] = shop_upkeep["tasks"]
    argv = job_task_argv(task, {"today": "2026-11-01"}, {"shop_root": tmp_path})
    args = parse_args(argv[1:])
    assert (str(args.today), args.window, args.dry_run, args.no_vacuum) == ("2026-11-01", None, False, False)
