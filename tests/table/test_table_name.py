"""The name orders_daily in a session from delta_spark(): right after it, in a terminal script, a Databricks
task and the suite's own session; Spark's own not-found error without a table; a first load names it; each
query sees the newest commit, another process's too. (The notebook, the warm server and the cluster run
tests/support/course_month.py too: test_notebook.py, test_spark_server.py, test_cluster.py.)"""
import os
import runpy
import shutil
import sys

import pytest
from pyspark.errors import AnalysisException

from conftest import LATE_ORDER, ROOT, SEP_15, append_line, run_script
from delta_session import delta_spark, set_root
from load_day import load_day

COURSE_MONTH = ROOT / "tests" / "support" / "course_month.py"


def course_env() -> dict:
    """A terminal's environment for a course script saved beside the project: delta_session importable."""
    env = {key: value for key, value in os.environ.items() if key not in ("SPARK_REMOTE", "SHOP_ROOT")}
    return {**env, "PYTHONPATH": str(ROOT)}


def test_a_course_script_reads_orders_daily_by_name_right_after_delta_spark(september):
    done = run_script("tests/support/course_month.py", "2026-09", cwd=september, env=course_env())
    assert (done.returncode, done.stdout, done.stderr) == (0, "2026-09: 30 days, 130 orders\n", "")


def test_without_a_table_the_name_is_sparks_own_not_found_until_a_first_load_in_the_session(spark, days):
    spark = delta_spark("course")
    with pytest.raises(AnalysisException) as error:
        spark.table("orders_daily")
    assert error.value.getCondition() == "TABLE_OR_VIEW_NOT_FOUND"
    assert load_day(spark, "2026-09-02") == "run 2026-09-02 loaded 2026-09-01: 4 rows, orders_daily has 4"
    assert spark.sql("SELECT count(*) AS n FROM orders_daily").first().n == 4


def test_the_name_sees_a_load_made_by_another_process_in_between(spark, september):
    spark = delta_spark("course")
    assert spark.table("orders_daily").count() == 130
    append_line(SEP_15, LATE_ORDER)
    done = run_script("load_day.py", "2026-09-16", cwd=september, env=course_env())
    assert done.stdout == "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131\n", done.stderr
    assert spark.table("orders_daily").count() == 131
    assert spark.sql("SELECT count(*) AS n FROM orders_daily WHERE order_id = 2131").first().n == 1


def test_delta_spark_again_after_set_root_names_the_new_roots_table(spark, september, tmp_path_factory):
    other = tmp_path_factory.mktemp("other")
    shutil.copytree(september / "landing", other / "landing")
    spark = delta_spark("course")
    assert spark.table("orders_daily").count() == 130
    set_root(other)  # a notebook moving to a folder with files and no table yet (no_project_root unsets it)
    spark = delta_spark("course")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table("orders_daily")
    load_day(spark, "2026-09-03")
    assert spark.table("orders_daily").count() == 5


def test_a_databricks_task_reads_the_table_by_name_below_its_root(spark, september, tmp_path, monkeypatch, capsys):
    """As on a Databricks cluster: the session exists already, the table is by path below the Volume's
    root (SHOP_ROOT, as --root sets it), the task's folder is elsewhere."""
    monkeypatch.setenv("DATABRICKS_RUNTIME_VERSION", "17.3")
    monkeypatch.setenv("SHOP_ROOT", str(september))
    (tmp_path / "workspace").mkdir()
    monkeypatch.chdir(tmp_path / "workspace")
    monkeypatch.setattr(sys, "argv", [str(COURSE_MONTH), "2026-09"])
    monkeypatch.syspath_prepend(str(ROOT))
    runpy.run_path(str(COURSE_MONTH), run_name="__main__")
    assert capsys.readouterr().out == "2026-09: 30 days, 130 orders\n"
