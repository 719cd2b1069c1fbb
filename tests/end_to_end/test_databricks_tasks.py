"""The Lakeflow job's tasks run as a Databricks cluster runs them, with no workspace.

    pytest tests/end_to_end/test_databricks_tasks.py

Each task's python_file, read from databricks.yml, is executed as __main__ with its parameters as
sys.argv ({{job.parameters.run_date}}, the other job parameters' defaults or a run's values, and the
bundle's variables filled in), in a process whose Spark session
already exists (the suite's, as the cluster's does), below a root that is not the current folder.
"""
import csv
import runpy
import sys
from pathlib import Path

import pytest

from bundle import load, task_argv
from shoptoolkit.storage.project_paths import root_at


@pytest.fixture
def tasks():
    return {task["task_key"]: task for task in load()["resources"]["jobs"]["shop_daily"]["tasks"]}


@pytest.fixture
def volume(tmp_path, monkeypatch):
    """A root shaped like a Volume's path, holding September's files; the current folder is elsewhere."""
    from make_days import make_days
    root = tmp_path / "Volumes" / "shop" / "dev" / "orders"
    root.mkdir(parents=True)
    with root_at(root):
        make_days()
    (tmp_path / "workspace").mkdir()
    monkeypatch.chdir(tmp_path / "workspace")
    return root


def run_task(task: dict, run_date: str, root: Path, capsys, monkeypatch, **parameters) -> tuple:
    """(exit code, stdout, stderr) of the task's script run as `python FILE PARAMETERS...` would run it, with
    these job parameters (the job's defaults for the others)."""
    argv = task_argv(task, run_date, {"shop_root": root}, **parameters)
    monkeypatch.setattr(sys, "argv", argv)
    monkeypatch.syspath_prepend(str(Path(argv[0]).parent))
    with pytest.raises(SystemExit) as done:
        runpy.run_path(argv[0], run_name="__main__")
    out = capsys.readouterr()
    return done.value.code, out.out, out.err


def file_orders(root: Path, day: str) -> list:
    with open(root / "landing" / "orders" / f"{day}.csv", newline="") as handle:
        return sorted((int(row["order_id"]), row["customer_id"], row["amount"]) for row in csv.DictReader(handle))


def table_orders(spark, root: Path, day: str) -> list:
    table = spark.read.format("delta").load(str(root / "lake" / "orders_daily"))
    return sorted((row.order_id, row.customer_id, f"{row.amount:.2f}")
                  for row in table.where(f"order_date = '{day}'").collect())


def test_load_then_check_run_in_the_active_session_below_the_root(spark, volume, tasks, capsys, monkeypatch):
    from pyspark.sql import SparkSession
    assert SparkSession.getActiveSession() is spark
    assert run_task(tasks["load_day"], "2026-09-16", volume, capsys, monkeypatch) == \
        (0, "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 3\n", "")
    assert run_task(tasks["check_day"], "2026-09-16", volume, capsys, monkeypatch) == \
        (0, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing\n", "")
    assert table_orders(spark, volume, "2026-09-15") == file_orders(volume, "2026-09-15")
    assert SparkSession.getActiveSession() is spark  # no session of their own
    assert list(Path.cwd().iterdir()) == []  # no landing/, lake/ or logs/ in the current folder


def test_a_missing_file_fails_the_load_the_failed_day_task_names_it_and_a_repair_loads_it(
        spark, volume, tasks, capsys, monkeypatch):
    from make_days import make_days
    (volume / "landing" / "orders" / "2026-09-20.csv").unlink()
    assert run_task(tasks["load_day"], "2026-09-21", volume, capsys, monkeypatch) == \
        (1, "", "error: no file landing/orders/2026-09-20.csv for run 2026-09-21\n")
    # check_day is then upstream failed; the one task whose run_if fires on a failure runs.
    [report] = [task for task in tasks.values() if task.get("run_if") == "AT_LEAST_ONE_FAILED"]
    assert run_task(report, "2026-09-21", volume, capsys, monkeypatch) == \
        (1, "FAILED run 2026-09-21: day 2026-09-20 is not loaded and checked; "
            "no file landing/orders/2026-09-20.csv\n", "")
    assert not (volume / "lake").exists()
    # The file restored, a Repair run reruns the failed tasks in order; failed_day is then excluded.
    with root_at(volume):
        make_days()
    assert run_task(tasks["load_day"], "2026-09-21", volume, capsys, monkeypatch)[:2] == \
        (0, "run 2026-09-21 loaded 2026-09-20: 3 rows, orders_daily has 3\n")
    assert run_task(tasks["check_day"], "2026-09-21", volume, capsys, monkeypatch)[:2] == \
        (0, "ok 2026-09-20: 3 rows for the file's 3 orders, 0 missing\n")
    assert table_orders(spark, volume, "2026-09-20") == file_orders(volume, "2026-09-20")


def test_a_new_column_is_refused_by_the_jobs_default_and_added_by_a_run_with_on_new_column_add(
        spark, volume, tasks, capsys, monkeypatch):
    """The job parameter on_new_column (the bundle's variable by default) reaches load_day.py (docs/new_columns.md)."""
    path = volume / "landing" / "orders" / "2026-09-20.csv"
    header, *orders = path.read_text().splitlines()
    path.write_text("\n".join([f"{header},channel", *(f"{order},web" for order in orders)]) + "\n")
    assert run_task(tasks["load_day"], "2026-09-21", volume, capsys, monkeypatch) == (
        1, "", "error: landing/orders/2026-09-20.csv line 1: unexpected column channel (expected order_id,customer_id,"
               "amount,ordered_at); --on-new-column add or rescue (or SHOP_ON_NEW_COLUMN) would load it\n")
    assert not (volume / "lake").exists()
    assert run_task(tasks["load_day"], "2026-09-21", volume, capsys, monkeypatch, on_new_column="add") == \
        (0, "run 2026-09-21 loaded 2026-09-20: 3 rows, orders_daily has 3\n", "")
    assert run_task(tasks["check_day"], "2026-09-21", volume, capsys, monkeypatch)[:2] == \
        (0, "ok 2026-09-20: 3 rows for the file's 3 orders, 0 missing\n")
    table = spark.read.format("delta").load(str(volume / "lake" / "orders_daily"))
    assert [row.channel for row in table.collect()] == ["web"] * 3
