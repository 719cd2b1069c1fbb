"""Table-level faults: a missing or damaged table is one clear line naming its path, exit 1, and
nothing is written over it; --verbose and SHOP_VERBOSE=1 show the full trace that is otherwise kept
to one line. (Writers in several processes at once: test_many_writers.py.)"""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, run_script
from backfill import main as backfill_main
from check_day import main as check_day_main
from shoptoolkit.storage.project_paths import table_path
from load_day import main as load_day_main

LOG = "lake/orders_daily/_delta_log"


def files_below(folder) -> dict:
    return {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_deleted_table_folder_is_named_by_every_reader(september, capsys):
    shutil.rmtree(table_path())
    assert check_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr().err == (
        "error: no Delta table at lake/orders_daily: load a day first "
        "(python load_day.py RUN_DATE or python backfill.py FIRST LAST)\n")


def test_deleted_delta_log_is_an_error_not_a_new_table(september, spark, capsys):
    shutil.rmtree(table_path() / "_delta_log")
    before = files_below(september / "lake")
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr() == ("", (
        f"error: table lake/orders_daily cannot be read: no commits in {LOG}; restore it from a backup, "
        "or delete the folder if its first load was interrupted\n"))
    assert files_below(september / "lake") == before


def test_truncated_commit_is_named_with_its_line_and_nothing_is_written(september, spark, capsys):
    newest = table_path() / "_delta_log" / f"{29:020d}.json"
    kept = newest.read_bytes()[:-25]
    newest.write_bytes(kept)
    line = kept.count(b"\n") + 1
    before = files_below(september / "lake")
    for main, args in ((load_day_main, ["2026-09-16"]), (check_day_main, ["2026-09-16"]),
                       (backfill_main, ["2026-09-16", "2026-09-17"])):
        assert main(args) == 1
        assert capsys.readouterr() == ("", (
            f"error: table lake/orders_daily cannot be read: commit {LOG}/{29:020d}.json "
            f"line {line} is not JSON (damaged); restore it from a backup\n"))
    assert files_below(september / "lake") == before


@pytest.fixture
def missing_data_file(september):
    """A table whose log names a data file that is gone: Spark fails with a Java error reading it."""
    data = sorted(table_path().glob("*.parquet"))
    assert data
    for path in data:
        path.unlink()
    return september


# The rows are read by check_day --deep; a check from the loads' records reads no data file (docs/check.md:
# what the record trusts), so check_month of a month the log proves says ok without reading them.
DEEP = ("check_day.py", "2026-09-16", "--deep")


def test_spark_error_is_one_line_by_default(missing_data_file):
    done = run_script(*DEEP, cwd=missing_data_file)
    assert (done.returncode, done.stdout) == (1, "")
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("error: ")
    assert "\tat " not in done.stderr and "Traceback" not in done.stderr


def test_verbose_flag_and_variable_show_the_full_trace(missing_data_file):
    flagged = run_script(*DEEP, "--verbose", cwd=missing_data_file)
    env = dict(os.environ, SHOP_VERBOSE="1")
    variable = subprocess.run([sys.executable, str(ROOT / DEEP[0]), *DEEP[1:]], cwd=missing_data_file,
                              capture_output=True, text=True, timeout=300, env=env)
    for done in (flagged, variable):
        assert done.returncode == 1 and done.stdout == ""
        assert "Traceback (most recent call last)" in done.stderr
        assert "\tat org.apache.spark" in done.stderr
