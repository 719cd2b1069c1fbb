"""Command lines a user meets that no other test runs: each through the script's main([...]) in this
session (argparse, run_main and all, as a notebook calls them), or as a process of its own where the
point is the process (spark_server.py without a server starts no Spark).

Usage errors (exit 2 before Spark starts) of run_pipeline.py and spark_server.py are in test_usage.py.
"""
import json
import re
import subprocess

from conftest import run_script, table_rows, table_version
from delta_session import partition_columns
from holding import first_loses
from make_days import DAY_COUNTS
from shoptoolkit.dates import day_loaded_by, run_dates
from shoptoolkit.storage.project_paths import day_file

CONFLICT = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
TIME = re.compile(r" \(\d+\.\d\d? s\)$")  # a run's time (0.00 s), the closing line's (0.0 s)
PLACE = re.compile(r"^\d+/\d+ ")  # backfill.py's place in front of a run's line
RETRY = re.compile(rf"run 2026-09-0[2-5] lost a write conflict \({CONFLICT}\); attempt [2-8] of 8 in \d+\.\d s")


def main_lines(main, args, capsys) -> tuple:
    """(exit code, stdout lines without places and times, stderr) of a script's main(args)."""
    code = main(args)
    out, err = capsys.readouterr()
    return code, [PLACE.sub("", TIME.sub("", line)) for line in out.splitlines()], err


def run_line(run_date, rows, total) -> str:
    day = day_loaded_by(run_date)
    return (f"run {run_date} loaded {day}: {rows} rows, orders_daily has {total}; "
            f"ok {day}: {rows} rows for the file's {rows} orders, 0 missing")


def test_backfill_reprocess_failed_reruns_what_failed_runs_left_then_nothing(september, spark, capsys):
    from backfill import main
    before = table_rows(spark)
    # Two runs that failed before their day landed: one whose file is there now, one whose file is not yet.
    spark.sql("DELETE FROM orders_daily WHERE order_date IN ('2026-09-10', '2026-09-20')")
    sep_20 = day_file(day_loaded_by("2026-09-21"))
    text = sep_20.read_text()
    sep_20.unlink()
    month = ["2026-09-02", "2026-10-01", "--reprocess", "failed"]
    assert main_lines(main, month, capsys) == (1, [
        run_line("2026-09-11", 3, 127),
        "run 2026-09-21 failed: no file landing/orders/2026-09-20.csv for run 2026-09-21",
        "ran 2 runs, 1 failed (2026-09-21), 28 skipped; orders_daily has 29 days, 127 orders"], "")
    sep_20.write_text(text)
    assert main_lines(main, month, capsys) == (0, [
        run_line("2026-09-21", 3, 130), "ran 1 runs, 0 failed, 29 skipped; orders_daily has 30 days, 130 orders"], "")
    assert main_lines(main, month, capsys) == (0, [
        "ran 0 runs, 0 failed, 30 skipped; orders_daily has 30 days, 130 orders"], "")
    assert table_rows(spark) == before


def test_backfill_dry_run_alone_would_run_every_date_and_writes_nothing(september, spark, capsys):
    from backfill import main
    before, version = table_rows(spark), table_version(spark)
    assert main_lines(main, ["2026-09-02", "2026-09-04", "--dry-run"], capsys) == (0, [
        "dry run, --reprocess all: runs every date",
        "run 2026-09-02 loads 2026-09-01: would run (ok)",
        "run 2026-09-03 loads 2026-09-02: would run (ok)",
        "run 2026-09-04 loads 2026-09-03: would run (ok)",
        "dry run: 3 of 3 runs would run, 0 skipped; nothing written"], "")
    assert (table_rows(spark), table_version(spark)) == (before, version)


def test_backfill_parallel_from_the_command_line_loads_every_run(september, spark, capsys):
    from backfill import main
    full = table_rows(spark)
    spark.sql("DELETE FROM orders_daily WHERE order_date BETWEEN '2026-09-01' AND '2026-09-04'")
    code, lines, err = main_lines(main, ["2026-09-02", "2026-09-05", "--parallel", "2"], capsys)
    retries = [line for line in lines if RETRY.fullmatch(line)]  # two at once on one table: any number
    runs = sorted(re.sub(r"orders_daily has \d+", "orders_daily has N", line)
                  for line in lines[:-1] if line not in retries)
    assert (code, err) == (0, "")
    assert runs == [run_line(run_date, rows, "N")
                    for run_date, rows in zip(run_dates("2026-09-02", "2026-09-05"), DAY_COUNTS)]
    assert lines[-1] == "ran 4 runs, 0 failed; orders_daily has 30 days, 130 orders"
    assert table_rows(spark) == full


def test_parallel_partitioned_from_the_command_line_all_succeed_beside_orders_daily(days, spark, capsys):
    from parallel import main
    code, lines, err = main_lines(main, ["--partitioned"], capsys)
    assert (code, err) == (0, "")
    assert [re.sub(r"orders_daily has \d+$", "orders_daily has N", line) for line in lines[:-1]] == [
        f"run {run_date} loaded {day_loaded_by(run_date)}: {rows} rows, orders_daily has N"
        for run_date, rows in zip(run_dates("2026-09-02", "2026-09-05"), DAY_COUNTS)]
    assert lines[-1] == "4 of 4 runs succeeded; experiments/partitioned/lake/orders_daily holds whole days only"
    assert (days / "experiments" / "partitioned" / "lake" / "orders_daily" / "order_date=2026-09-04").is_dir()
    assert not (days / "lake").exists()


def test_parallel_tries_from_the_command_line_runs_both_layouts_and_sums_up(days, spark, capsys, monkeypatch):
    from parallel import main
    # The unpartitioned try's race is forced (tests/support/holding.py): the first run held, the others commit.
    monkeypatch.setattr("load_day.read_orders", first_loses(days / "hold", run_dates("2026-09-02", "2026-09-05")))
    assert main_lines(main, ["--tries", "1"], capsys) == (0, [
        f"try 1 unpartitioned: 3 of 4 succeeded; lost: {CONFLICT}; whole days only",
        "try 1 partitioned: 4 of 4 succeeded; whole days only",
        "unpartitioned: 3 of 4 succeeded in 1 of 1 tries",
        "partitioned: 4 of 4 succeeded in 1 of 1 tries"], "")
    assert not (days / "lake").exists()


def test_partition_table_as_a_command_rewrites_once_then_has_nothing_to_do(september, spark, capsys):
    from partition_table import main
    before, version = table_rows(spark), table_version(spark)
    assert main_lines(main, [], capsys) == (0, [
        f"orders_daily is now partitioned by order_date: version {version} -> {version + 1}, 130 rows, "
        "the same as before"], "")
    assert main_lines(main, [], capsys) == (0, ["orders_daily is already partitioned by order_date: nothing to do"], "")
    assert (table_rows(spark), table_version(spark), partition_columns(spark)) == (before, version + 1, ["order_date"])


def test_restore_day_without_a_table_says_so_in_one_line_and_creates_none(days, spark, capsys):
    from restore_day import main
    assert main_lines(main, ["2026-09-16", "--version", "0"], capsys) == (1, [], (
        "error: no Delta table at lake/orders_daily: load a day first "
        "(python load_day.py RUN_DATE or python backfill.py FIRST LAST)\n"))
    assert not (days / "lake").exists()


def test_spark_server_env_without_a_server_is_an_error(tmp_path):
    done = run_script("spark_server.py", "env", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "error: no Spark server is running here\n")


def stale_state(folder, pid: int) -> None:
    """The .spark_server/ a start left, naming pid and a port nothing listens on."""
    (folder / ".spark_server").mkdir(mode=0o700)
    (folder / ".spark_server" / "server.json").write_text(json.dumps({"pid": pid, "port": 1}))
    (folder / ".spark_server" / "token").write_text("token")


def test_a_stale_pid_file_of_a_server_that_died_is_removed_by_stop(tmp_path):
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale_state(tmp_path, ended.pid)
    done = run_script("spark_server.py", "stop", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "no Spark server is running here\n", "")
    assert not (tmp_path / ".spark_server").exists()
    done = run_script("spark_server.py", "status", cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (1, "no Spark server is running here\n", "")


def test_a_stale_pid_now_another_process_is_not_a_server_and_stop_kills_nothing(tmp_path):
    other = subprocess.Popen(["sleep", "120"])  # the dead server's pid, taken again by an unrelated process
    try:
        stale_state(tmp_path, other.pid)
        done = run_script("spark_server.py", "status", cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (1, "no Spark server is running here\n", "")
        done = run_script("spark_server.py", "stop", cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (0, "no Spark server is running here\n", "")
        assert other.poll() is None and not (tmp_path / ".spark_server").exists()
    finally:
        other.kill()
        other.wait()
