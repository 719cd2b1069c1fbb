"""sdp_nightly (dags/sdp_nightly.py) under a real Airflow scheduler, running the shop's pipeline with real
Spark and Delta; and the Spark provider installed beside pyspark without breaking it.

    pytest -m airflow tests/end_to_end/test_pipeline_dag.py -s      # -s shows the measured times

As in test_airflow_e2e.py, the project is copied to a temporary folder with its own Airflow; no warm Spark
server here: each pipeline run starts its own, as spark-pipelines does. Scenario: turning the DAG on runs
it once for the latest 03:00, a backfill over two run dates makes two runs of the same command, and
a run with {"full_refresh": ["orders_raw"]} in its conf picks up the late order of 15 September.
"""
import importlib.metadata
import importlib.util
import json
import re
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import pytest

from conftest import LATE_ORDER, SEP_15
from test_airflow_e2e import (DONE, Shop, backfill_runs, copy_project, runs, seconds, task_states, wait_for,
                              wait_for_runs)

pytestmark = [
    pytest.mark.airflow,
    pytest.mark.usefixtures("pipeline_turn"),  # no other test's pipeline run beside its runs
    pytest.mark.timeout(1800),  # the DAG's story: 5 to 8 minutes in CI
    pytest.mark.skipif(importlib.util.find_spec("airflow") is None,
                       reason="apache-airflow is not installed: make airflow-setup"),
]

DAG = "sdp_nightly"
# Run dates whose day before is in September, so each run's check looks at September (up to that day).
BACKFILL = ["2026-09-29", "2026-09-30"]  # --to-date 2026-10-01 is read as midnight
CONF_RUN = "2026-10-01"
SKIPPED_SELECTION = {"prepare": "success", "selection": "skipped", "run": "success", "check": "success"}


def test_the_spark_provider_is_installed_beside_pyspark_without_breaking_it():
    done = subprocess.run([sys.executable, "-m", "pip", "check"], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (0, "No broken requirements found.\n")
    assert importlib.metadata.version("pyspark") == importlib.metadata.version("pyspark-client") == "4.2.0"
    home = Path(importlib.util.find_spec("pyspark").origin).parent
    assert (home / "jars" / "spark-core_2.13-4.2.0.jar").is_file()
    assert (home / "jars" / "spark-connect_2.13-4.2.0.jar").is_file()
    assert (home / "bin" / "spark-pipelines").is_file()
    assert importlib.util.find_spec("pyspark.core") is not None
    from airflow.providers.apache.spark.operators.spark_pipelines import SparkPipelinesOperator  # noqa: F401


@pytest.fixture
def shop(tmp_path):
    shop = Shop(copy_project(tmp_path / "shop"))
    shop.env["SHOP_RETRIES"] = "0"  # the scheduled run's check fails (no file for its month): once is enough
    try:
        shop.start(dag_id=DAG, warm=False)
        yield shop
    finally:
        shop.stop()


def task_log(shop: Shop, run: dict, task: str) -> str:
    """The text of a task's last attempt's log (JSON lines)."""
    folder = shop.home / "airflow_home" / "logs" / f"dag_id={DAG}" / f"run_id={run['run_id']}" / f"task_id={task}"
    return sorted(folder.glob("attempt=*.log"))[-1].read_text()


def logged_events(shop: Shop, run: dict, task: str) -> list:
    return [json.loads(line).get("event", "") for line in task_log(shop, run, task).splitlines() if line.strip()]


def view(spark, shop: Shop) -> dict:
    """{day: (orders, amount)} of lake/orders_by_day."""
    rows = spark.read.format("delta").load(str(shop.home / "lake" / "orders_by_day")).collect()
    return {str(row.order_date): (row.orders, row.amount) for row in rows}


def totals(days: dict) -> tuple:
    return len(days), sum(orders for orders, _ in days.values()), sum(amount for _, amount in days.values())


def check_line(days: dict, run_date: str) -> str:
    """What check_pipeline.py 2026-09 --today run_date prints when the view's days up to the day before match."""
    count, orders, amount = totals({day: value for day, value in days.items() if day < run_date})
    return f"ok 2026-09: orders_by_day matches the files on all {count} days, {orders} orders, {amount:.2f} in all"


def test_sdp_nightly_runs_backfills_and_fully_refreshes_the_pipeline(shop, spark):
    wait_for(lambda: shop.stored_dags() >= {"shop_daily", DAG}, "the dag-processor to store both DAGs",
             seconds=120, every=1)  # sdp_nightly defines shop_daily no second time
    assert shop.stored("SELECT filename, stacktrace FROM import_error") == []  # `airflow dags list-import-errors`

    # Turning the DAG on starts one run of its own, for the latest 03:00 by the real clock. It runs before
    # any file exists: the pipeline loads nothing and the check of the month of the day before that run
    # date finds no file, so it fails whatever today's date is (even one whose day is in September).
    shop.sh("airflow", "dags", "unpause", DAG)
    wait_for(lambda: any(state in DONE for state, _ in shop.run_states(DAG).values()), "the scheduled run", 600,
             every=3)
    (scheduled,) = runs(shop, DAG).values()
    assert scheduled["state"] == "failed"
    assert task_states(shop, scheduled, DAG) == {**SKIPPED_SELECTION, "check": "failed"}
    assert any(re.match(r"PROBLEM \d{4}-\d{2}: \d+ of \d+ days do not match$", event)
               for event in logged_events(shop, scheduled, "check")), task_log(shop, scheduled, "check")[-2000:]
    assert view(spark, shop) == {}
    shop.sh("python", "make_days.py")

    started = time.monotonic()
    wait_for(lambda: shop.sh("airflow_backfill_create", "--dag-id", DAG, "--from-date", BACKFILL[0], "--to-date", CONF_RUN,
                             "--max-active-runs", "1", check=False).returncode == 0, "backfill create", 60)
    wait_for_runs(shop, BACKFILL, 900, DAG, kind="backfill__")
    took = time.monotonic() - started
    made = backfill_runs(shop, DAG)
    assert sorted(made) == BACKFILL
    september = view(spark, shop)  # the first run loaded every file; the one after it added nothing
    assert totals(september) == (30, 130, Decimal("3380.54"))
    commands = set()
    for day in BACKFILL:
        assert made[day]["state"] == "success", day
        assert task_states(shop, made[day], DAG) == SKIPPED_SELECTION, day
        commands |= {event for event in logged_events(shop, made[day], "run") if event.startswith("Spark-Pipelines cmd:")}
        assert check_line(september, day) in logged_events(shop, made[day], "check"), day
    assert commands == {f"Spark-Pipelines cmd: {sys.executable} -m pyspark.pipelines.cli run --spec "
                        f"{shop.home}/pipelines/.spark-pipeline.prepared.yml"}, commands

    with open(shop.home / "landing" / "orders" / f"{SEP_15}.csv", "a") as late:
        late.write(LATE_ORDER + "\n")
    shop.sh("airflow", "dags", "trigger", DAG, "--logical-date", f"{CONF_RUN}T03:00:00+00:00",
            "--conf", json.dumps({"full_refresh": ["orders_raw"]}))
    refreshed = wait_for_runs(shop, [CONF_RUN], 600, DAG)[CONF_RUN]
    assert refreshed["state"] == "success"
    assert task_states(shop, refreshed, DAG) == {**SKIPPED_SELECTION, "selection": "success"}
    assert any("run_pipeline.py --full-refresh=orders_raw" in event for event in
               logged_events(shop, refreshed, "selection")), task_log(shop, refreshed, "selection")[-2000:]
    after = view(spark, shop)
    assert after[str(SEP_15)] == (4, Decimal("80.28")) and totals(after) == (30, 131, Decimal("3400.53"))
    assert check_line(after, CONF_RUN) == ("ok 2026-09: orders_by_day matches the files on all 30 days, 131 orders, "
                                          "3400.53 in all")
    assert check_line(after, CONF_RUN) in logged_events(shop, refreshed, "check")

    print(f"\n{DAG}: a run {seconds(made[BACKFILL[0]]):.0f} s; backfill of {len(BACKFILL)} runs {took:.0f} s from "
          f"create to last run done; the full-refresh run {seconds(refreshed):.0f} s")
