"""Bad arguments are usage errors (exit 2) found before any Spark session starts."""
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_script
from shoptoolkit.engine.spark_jvm import archive_path, log_store_jar


@pytest.mark.parametrize("script, args, message", [
    ("load_day.py", ["2026-13-01"], "argument run_date: '2026-13-01' is not a calendar date"),
    ("load_day.py", ["yesterday"], "argument run_date: 'yesterday' is not a date in the form YYYY-MM-DD"),
    ("load_day.py", [""], "argument run_date: '' is not a date in the form YYYY-MM-DD"),
    ("check_day.py", ["2026-02-30"], "argument run_date: '2026-02-30' is not a calendar date"),
    ("check_month.py", ["2026-9"], "argument month: '2026-9' is not a month in the form YYYY-MM"),
    ("check_month.py", ["2026-13"], "argument month: '2026-13' is not a month in the form YYYY-MM"),
    ("backfill.py", ["2026-10-01", "2026-09-02"], "FIRST 2026-10-01 is after LAST 2026-09-02"),
    ("backfill.py", ["2025-01-01", "2026-09-02"], "610 runs is more than a year (366); add --allow-long"),
    ("history.py", ["--limit", "0"], "--limit must be 1 or more, not 0"),
    ("load_day.py", ["2026-09-16", "--fast"], "unrecognized arguments: --fast"),
    ("load_day.py", [], "the following arguments are required: run_date"),
    ("check_day.py", ["16/09/2026"], "argument run_date: '16/09/2026' is not a date in the form YYYY-MM-DD"),
    ("check_day.py", ["2026-09-16", "--all"], "unrecognized arguments: --all"),
    ("check_month.py", ["2026-09-01"], "argument month: '2026-09-01' is not a month in the form YYYY-MM"),
    ("check_month.py", ["September"], "argument month: 'September' is not a month in the form YYYY-MM"),
    ("check_month.py", ["2026-09", "--fix"], "unrecognized arguments: --fix"),
    ("backfill.py", ["2026-09-02", "someday"], "argument last: 'someday' is not a date in the form YYYY-MM-DD"),
    ("backfill.py", ["2026-02-29", "2026-03-01"], "argument first: '2026-02-29' is not a calendar date"),
    ("backfill.py", ["2026-09-02"], "the following arguments are required: last"),
    ("backfill.py", ["2025-09-01", "2026-09-02"], "367 runs is more than a year (366); add --allow-long"),
    ("backfill.py", ["2026-09-02", "2026-10-01", "--workers", "4"], "unrecognized arguments: --workers 4"),
    ("backfill.py", ["2026-09-02", "2026-10-01", "--parallel", "0"], "--parallel must be 1 or more, not 0"),
    ("history.py", ["--limit", "many"], "argument --limit: invalid int value: 'many'"),
    ("history.py", ["--since", "2026-09-01"], "unrecognized arguments: --since"),
    ("restore_day.py", ["2026-13-01", "--version", "3"], "argument first: '2026-13-01' is not a calendar date"),
    ("restore_day.py", ["2026-09-16"], "the following arguments are required: --version"),
    ("restore_day.py", ["2026-09-16", "--version", "-1"], "--version must be 0 or more, not -1"),
    ("restore_day.py", ["2025-01-01", "2026-09-02", "--version", "3"], "610 runs is more than a year (366)"),
    ("restore_day.py", ["2026-10-01", "2026-09-02", "--version", "3"], "FIRST 2026-10-01 is after LAST 2026-09-02"),
    ("make_days.py", ["--month", "2026-10"], "unrecognized arguments: --month 2026-10"),
    ("make_days.py", ["--from", "2026-09-10", "--to", "2026-09-01"], "--from 2026-09-10 is after --to 2026-09-01"),
    ("make_days.py", ["--to", "2026-08-31"], "--from 2026-09-01 is after --to 2026-08-31"),
    ("make_days.py", ["--from", "last week"], "argument --from: 'last week' is not a date in the form YYYY-MM-DD"),
    ("make_days.py", ["--to", "2026-09-31"], "argument --to: '2026-09-31' is not a calendar date"),
    ("make_days.py", ["--from", "2016-09-01"], "3682 days is more than 3660; write a shorter range"),
    ("load_day.py", ["2026-09-16", "--root", "no/such/folder"], "argument --root: 'no/such/folder' is not a folder"),
    ("load_day.py", ["2026-09-16", "--on-new-column", "merge"], "argument --on-new-column: invalid choice: 'merge'"),
    ("backfill.py", ["2026-09-02", "2026-09-03", "--column-types", "discount MONEY"],
     "argument --column-types: 'discount MONEY' is not a column and its type like `discount DECIMAL(10,2)`"),
    ("parallel.py", ["--on-new-column"], "argument --on-new-column: expected one argument"),
    ("failed_day.py", ["2026-09-21", "--root"], "argument --root: expected one argument"),
    ("run_pipeline.py", ["--refresh", "orders"],
     "argument --refresh: orders: not a dataset of the pipeline (orders_raw, orders_by_day)"),
    ("run_pipeline.py", ["--full-refresh", "orders_raw,orders_view"],
     "argument --full-refresh: orders_view: not a dataset of the pipeline (orders_raw, orders_by_day)"),
    ("run_pipeline.py", ["--dry-run", "--refresh", "orders_by_day"],
     "--dry-run takes no refresh selection: a dry run reads and writes no data"),
    ("run_pipeline.py", ["--window", "2026-09-12", "2026-09-10"], "FIRST 2026-09-12 is after LAST 2026-09-10"),
    ("run_pipeline.py", ["--window", "2026-09-10"], "argument --window: expected 2 arguments"),
    ("run_pipeline.py", ["--full-refresh-all", "yes"], "unrecognized arguments: yes"),
    ("spark_server.py", ["start", "--port", "80"], "--port must be between 1024 and 65535, not 80"),
    ("spark_server.py", ["start", "--port", "65536"], "--port must be between 1024 and 65535, not 65536"),
    ("spark_server.py", ["start", "--port", "next"], "argument --port: invalid int value: 'next'"),
    ("spark_server.py", ["restart"], "argument command: invalid choice: 'restart'"),
    ("spark_server.py", [], "the following arguments are required: command"),
])
def test_bad_arguments_are_usage_errors_before_spark(tmp_path, script, args, message):
    done = run_script(script, *args, cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"{script}: error: ") and message in last
    assert not (tmp_path / "logs").exists()  # no Spark was started


def test_a_long_range_passes_with_allow_long_and_a_year_without():
    from backfill import parse_args
    assert str(parse_args(["2025-01-01", "2026-09-02", "--allow-long"]).first) == "2025-01-01"
    assert str(parse_args(["2025-09-02", "2026-09-02"]).last) == "2026-09-02"  # 366 runs



@pytest.mark.parametrize("script, argument, message", [
    ("load_day", "2026-13-01", "argument run_date: '2026-13-01' is not a calendar date"),
    ("check_day", "2026-13-01", "argument run_date: '2026-13-01' is not a calendar date"),
    ("backfill", "2026-13-01", "argument first: '2026-13-01' is not a calendar date"),
    ("check_month", "2026-13", "argument month: '2026-13' is not a month in the form YYYY-MM"),
])
def test_python_m_runs_a_script_as_its_path_does(tmp_path, script, argument, message):
    """`python -m load_day ...` in the toolkit's folder (SHOP_ROOT elsewhere): the same usage error."""
    done = subprocess.run([sys.executable, "-m", script, argument], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "SHOP_ROOT": str(tmp_path)}, timeout=300)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.strip().splitlines()[-1] == f"{script}.py: error: {message}"
    assert not (tmp_path / "logs").exists()


def test_the_jvm_tools_run_as_modules_of_the_package():
    """make setup builds the class archive and the log store with `python -m shoptoolkit.engine....`."""
    for module, line in (("shoptoolkit.engine.class_archive", f"class archive: {archive_path()}"),
                         ("shoptoolkit.engine.log_store", f"log store: {log_store_jar()}")):
        done = subprocess.run([sys.executable, "-m", module, "--status"], cwd=ROOT, capture_output=True, text=True,
                              timeout=120)
        assert (done.returncode, done.stdout, done.stderr) == (0, line + "\n", "")
