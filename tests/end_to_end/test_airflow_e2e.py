"""End to end: shop_daily under a real Airflow scheduler, loading with real Spark into a real Delta table.

    pytest -m airflow tests/end_to_end/test_airflow_e2e.py -s      # -s shows the measured times

The project's scripts are copied to a temporary folder, which gets its own airflow_home/ (SQLite) and
its own free port on 127.0.0.1; Airflow is started and stopped with dags/airflow_env.sh, as a user does.
The DAG's tasks and the test's own checks run on a warm Spark Connect server (spark_server.py) that
the test starts beside Airflow and stops after it, so no task pays a Spark start.
Scenario: one day's file is missing, a backfill over it fails only the run that loads that day,
the file comes back, and a backfill with --reprocess-behavior failed reruns that run alone.
Then shop_backfill, triggered with a range holding a missing day: one commit of the other days, a
failed task whose log names the missing day, check_month.py finding it; and a trigger without `last`.
"""
import datetime as dt
import importlib.util
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from contextlib import closing
from pathlib import Path

import pytest

from conftest import wait_for  # noqa: F401 (test_pipeline_dag.py and bench_dag.py take it from here too)
from shoptoolkit.dates import run_dates
from shoptoolkit.engine.connect_server import free_port
from suite_jit import server_env

pytestmark = [
    pytest.mark.airflow,
    pytest.mark.timeout(2400),  # Airflow (set up in the first test), its DAGs and their runs: 15 minutes and more in CI
    pytest.mark.skipif(importlib.util.find_spec("airflow") is None,
                       reason="apache-airflow is not installed: make airflow-setup"),
]

PROJECT = Path(__file__).resolve().parents[2]
# --to-date is read as midnight, so this backfill's runs are 2026-09-19 .. 2026-09-22 at 02:00.
FROM_DATE, TO_DATE = "2026-09-19", "2026-09-23"
RUNS = ["2026-09-19", "2026-09-20", "2026-09-21", "2026-09-22"]
MISSING_DAY, FAILING_RUN = "2026-09-20", "2026-09-21"
DONE = ("success", "failed")


class Shop:
    """A copy of the project with its own Airflow; every command goes through dags/airflow_env.sh."""

    def __init__(self, home: Path):
        self.home = home
        self.port = free_port()
        # Airflow moves each task, and BashOperator each command, into a process group of its own;
        # this mark in their inherited environment lets stop() find every one of them.
        self.mark = f"SHOP_E2E_MARK={uuid.uuid4()}"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "SHOP_"))}
        self.env = {**env, "SHOP_AIRFLOW_PORT": str(self.port), "SHOP_RETRIES": "1",
                    "SHOP_RETRY_DELAY_SECONDS": "1", **dict([self.mark.split("=", 1)])}

    def sh(self, *args, check=True) -> subprocess.CompletedProcess:
        """Run a command in the project folder with the environment airflow_env.sh sets."""
        done = subprocess.run(["bash", "-c", 'source dags/airflow_env.sh && "$@"', "sh", *args],
                              cwd=self.home, env=self.env, capture_output=True, text=True, timeout=300)
        if check and done.returncode != 0:
            raise AssertionError(f"{' '.join(args)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
        return done

    def airflow_json(self, *args) -> list:
        """The JSON list an `airflow ... -o json` command prints; [] when it prints none."""
        out = self.sh("airflow", *args, "-o", "json").stdout
        return next((json.loads(line) for line in out.splitlines() if line.startswith("[")), [])

    def stored(self, sql: str, *params) -> list:
        """Rows from Airflow's own SQLite database, read only. The waits poll it here: an `airflow`
        command costs seconds of CPU to start, taken from the very tasks a poll waits for."""
        database = self.home / "airflow_home" / "airflow.db"
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=60)) as db:
            return db.execute(sql, params).fetchall()

    def stored_dags(self) -> set:
        """The DAGs the dag-processor has stored (a row in dag and in serialized_dag)."""
        return {row[0] for row in self.stored("SELECT dag.dag_id FROM dag JOIN serialized_dag "
                                               "ON serialized_dag.dag_id = dag.dag_id")}

    def run_states(self, dag_id: str, kind: str = "") -> dict:
        """{run date: (state, start)} of the DAG's runs whose run_id starts with kind, as stored."""
        rows = self.stored("SELECT logical_date, state, start_date FROM dag_run WHERE dag_id = ? AND run_id LIKE ?",
                           dag_id, f"{kind}%")
        return {str(day)[:10]: (state, start) for day, state, start in rows}

    def start(self, dag_id="shop_daily", warm=True, server_variables: dict = None):
        """A warm Spark Connect server first (the tasks and this test's own commands run on it, as
        docs/airflow.md shows), started with server_variables in its environment, then Airflow with
        SHOP_SPARK_REMOTE pointing the DAG's tasks at it. warm=False: Airflow alone (sdp_nightly's
        pipeline starts a Spark of its own)."""
        if warm:
            variables = [f"{key}={value}" for key, value in (server_variables or {}).items()]
            export = self.sh("env", *variables, "python", "spark_server.py", "start").stdout.strip()
            assert export.startswith("export SPARK_REMOTE='sc://localhost:"), export
            remote = export.split("=", 1)[1].strip("'")
            self.env.update({"SPARK_REMOTE": remote, "SHOP_SPARK_REMOTE": remote})
        self.sh("shop_airflow_start")
        wait_for(lambda: dag_id in self.stored_dags(), f"the dag-processor to store {dag_id}", seconds=120, every=1)

    def stop(self):
        """Stop the process group shop_airflow_start made, then anything else carrying the mark."""
        pid_file = self.home / "airflow_home" / "airflow.pid"
        if pid_file.exists():
            group = int(pid_file.read_text())
            signal_group(group, signal.SIGTERM)
            wait_for(lambda: not group_alive(group), "Airflow to stop", seconds=30, fail=False)
            signal_group(group, signal.SIGKILL)
        if "SPARK_REMOTE" in self.env:
            self.sh("python", "spark_server.py", "stop", check=False)
        for pid in marked_processes(self.mark):
            os.kill(pid, signal.SIGKILL)
        wait_for(lambda: not port_taken(self.port), f"port {self.port} to be free", seconds=15)


def copy_project(dest: Path) -> Path:
    """The toolkit's scripts, its package, dags/ and pipelines/, and .venv pointing at the Python running these tests."""
    dest.mkdir()
    for path in PROJECT.glob("*.py"):
        shutil.copy(path, dest)
    for folder in ("shoptoolkit", "dags", "pipelines"):
        shutil.copytree(PROJECT / folder, dest / folder, ignore=shutil.ignore_patterns("__pycache__", ".*.yml"))
    (dest / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return dest


def port_taken(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def signal_group(group: int, sig) -> None:
    try:
        os.killpg(group, sig)
    except ProcessLookupError:
        pass


def group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
        return True
    except ProcessLookupError:
        return False


def marked_processes(mark: str) -> list:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if mark.encode() in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def runs(shop: Shop, dag_id="shop_daily") -> dict:
    """The DAG's runs by run date (YYYY-MM-DD), each with its id, state and times, as Airflow stored them
    (what `airflow dags list-runs` prints, without the seconds of CPU each such command costs)."""
    rows = shop.stored("SELECT logical_date, run_id, state, start_date, end_date FROM dag_run WHERE dag_id = ?",
                       dag_id)
    return {str(day)[:10]: {"logical_date": str(day), "run_id": run_id, "state": state, "start_date": start,
                            "end_date": end} for day, run_id, state, start, end in rows}


def backfill_runs(shop: Shop, dag_id="shop_daily") -> dict:
    return {day: r for day, r in runs(shop, dag_id).items() if r["run_id"].startswith("backfill__")}


def task_states(shop: Shop, run: dict, dag_id="shop_daily") -> dict:
    """{task: state} of one run, as stored (what `airflow tasks states-for-dag-run` prints)."""
    rows = shop.stored("SELECT task_id, state FROM task_instance WHERE dag_id = ? AND run_id = ?", dag_id,
                       run["run_id"])
    return dict(rows)


def wait_for_runs(shop: Shop, days: list, seconds: float, dag_id="shop_daily", kind="") -> dict:
    """Wait until the DAG's runs of these days (run_id starting with kind) have ended; then their
    runs as `airflow dags list-runs` shows them."""
    def all_done():
        states = shop.run_states(dag_id, kind)
        return all(states.get(day, ("",))[0] in DONE for day in days)
    wait_for(all_done, f"{dag_id} runs {days} to finish", seconds, every=3)
    return {day: run for day, run in runs(shop, dag_id).items() if run["run_id"].startswith(kind)}


def wait_until_done(shop: Shop, days: list, seconds: float) -> dict:
    return wait_for_runs(shop, days, seconds, kind="backfill__")


def rerun_done(shop: Shop, day: str, first_start) -> bool:
    state, start = shop.run_states("shop_daily", "backfill__")[day]
    return start != first_start and state in DONE


def create_backfill(shop: Shop, *extra) -> None:
    """airflow_backfill_create (airflow backfill create, tried again on a busy SQLite); Airflow admits one
    unfinished backfill per DAG, and the scheduler closes the last one only soon after it ends."""
    args = ("airflow_backfill_create", "--from-date", FROM_DATE, "--to-date", TO_DATE, "--max-active-runs", "1",
            *extra)
    wait_for(lambda: shop.sh(*args, check=False).returncode == 0, "backfill create to be accepted", 300)


def seconds(run: dict) -> float:
    start, end = (dt.datetime.fromisoformat(run[k]) for k in ("start_date", "end_date"))
    return (end - start).total_seconds()


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    """One Airflow for the file's tests: they load days that do not overlap (19..22 Sep and 1..14 Sep)."""
    shop = Shop(copy_project(tmp_path_factory.mktemp("e2e") / "shop"))
    try:
        shop.start(server_variables=server_env({}))  # its JVM as the suite's own (support/suite_jit.py)
        yield shop
    finally:
        shop.stop()


def test_backfill_fails_only_the_missing_day_and_reprocessing_reruns_only_that_run(shop):
    # Turning the DAG on starts one run of its own, for the latest 02:00 by the real clock. It runs before
    # any file exists, so it fails whatever today's date is (even one whose day is in September).
    shop.sh("airflow", "dags", "unpause", "shop_daily")
    wait_for(lambda: any(state in DONE for state, _ in shop.run_states("shop_daily").values()),
             "the scheduled run", 600, every=3)
    assert [r["state"] for r in runs(shop).values()] == ["failed"]
    shop.sh("python", "make_days.py")
    (shop.home / "landing" / "orders" / f"{MISSING_DAY}.csv").unlink()

    started = time.monotonic()
    create_backfill(shop)
    first = wait_until_done(shop, RUNS, seconds=1800)
    took = time.monotonic() - started
    assert {day: r["state"] for day, r in first.items()} == {
        day: "failed" if day == FAILING_RUN else "success" for day in RUNS}
    for day in RUNS:
        expected = ({"load_day": "failed", "check_day": "upstream_failed"} if day == FAILING_RUN
                    else {"load_day": "success", "check_day": "success"})
        assert task_states(shop, first[day]) == expected, day
    # The commands docs/airflow.md follows a backfill with show what the test reads from Airflow's database.
    listed = shop.airflow_json("dags", "list-runs", "shop_daily")
    assert {r["logical_date"][:10]: r["state"] for r in listed if r["run_id"].startswith("backfill__")} == {
        day: r["state"] for day, r in first.items()}
    states = shop.airflow_json("tasks", "states-for-dag-run", "shop_daily", first[FAILING_RUN]["run_id"])
    assert {row["task_id"]: row["state"] for row in states} == task_states(shop, first[FAILING_RUN])
    attempts = sorted((shop.home / "airflow_home" / "logs" / "dag_id=shop_daily"
                       / f"run_id={first[FAILING_RUN]['run_id']}" / "task_id=load_day").glob("attempt=*"))
    assert [a.name for a in attempts] == ["attempt=1.log", "attempt=2.log"]     # SHOP_RETRIES=1
    assert f"no file landing/orders/{MISSING_DAY}.csv for run {FAILING_RUN}" in attempts[-1].read_text()

    history = shop.sh("python", "history.py", "--limit", "100").stdout.splitlines()
    shop.sh("python", "make_days.py")
    first_start = shop.run_states("shop_daily", "backfill__")[FAILING_RUN][1]
    create_backfill(shop, "--reprocess-behavior", "failed")
    wait_for(lambda: rerun_done(shop, FAILING_RUN, first_start), "the rerun", 900, every=3)
    second = backfill_runs(shop)
    assert {day: r["state"] for day, r in second.items()} == dict.fromkeys(RUNS, "success")
    assert {d: r["run_id"] for d, r in second.items()} == {d: r["run_id"] for d, r in first.items()}
    for day in RUNS:
        if day != FAILING_RUN:      # not run again: same start as in the first backfill
            assert second[day]["start_date"] == first[day]["start_date"], day

    after = shop.sh("python", "history.py", "--limit", "100").stdout.splitlines()
    assert after[1:] == history
    assert re.match(rf"version \d+ \| WRITE \| order_date = DATE'{MISSING_DAY}' \|", after[0]), after[0]

    checks = shop.sh("python", "-c", CHECK_LOADED_DAYS, *RUNS).stdout.splitlines()
    assert len(checks) == len(RUNS) + 1 and all(c.startswith("ok ") for c in checks[:-1]), checks
    assert checks[-1] == "days in table: 2026-09-18 2026-09-19 2026-09-20 2026-09-21"

    ok_runs = [seconds(r) for d, r in first.items() if d != FAILING_RUN]
    print(f"\nbackfill of {len(RUNS)} runs: {took:.0f} s from create to last run done; "
          f"a successful run (both tasks) {min(ok_runs):.0f}-{max(ok_runs):.0f} s; "
          f"rerun of {FAILING_RUN}: {seconds(second[FAILING_RUN]):.0f} s")


# check_day for every run date in one Spark session, then which days the table holds.
CHECK_LOADED_DAYS = """
import sys
from check_day import check_day
from delta_session import delta_spark, orders_table
spark = delta_spark("e2e_check")
for run_date in sys.argv[1:]:
    print(check_day(spark, run_date)[1])
days = sorted(str(r[0]) for r in orders_table(spark).select("order_date").distinct().collect())
print("days in table: " + " ".join(days))
"""


# shop_backfill over runs 2 .. 15 Sep (days 1 .. 14), with 8 Sep's file missing.
RANGE = {"first": "2026-09-02", "last": "2026-09-15"}
GAP_DAY, GAP_RUN = "2026-09-08", "2026-09-09"


def trigger(shop: Shop, run_id: str, conf: dict) -> None:
    shop.sh("airflow", "dags", "trigger", "shop_backfill", "--run-id", run_id, "--conf", json.dumps(conf))


def run_state(shop: Shop, run_id: str, dag_id="shop_backfill") -> str:
    rows = shop.stored("SELECT state FROM dag_run WHERE dag_id = ? AND run_id = ?", dag_id, run_id)
    return rows[0][0] if rows else ""


def command_output(shop: Shop, run_id: str, task_id="backfill", dag_id="shop_backfill") -> tuple:
    """(the task's attempts, the lines its command printed, its exit code), from its JSON-lines log."""
    folder = shop.home / "airflow_home" / "logs" / f"dag_id={dag_id}" / f"run_id={run_id}" / f"task_id={task_id}"
    attempts = sorted(folder.glob("attempt=*"))
    events = [json.loads(line).get("event", "") for line in attempts[-1].read_text().splitlines()]
    start, end = events.index("Output:"), next(i for i, e in enumerate(events) if e.startswith("Command exited"))
    return [a.name for a in attempts], events[start + 1:end], int(events[end].rsplit(" ", 1)[1])


def test_shop_backfill_commits_the_good_days_then_fails_naming_the_missing_one(shop):
    shop.sh("python", "make_days.py")
    (shop.home / "landing" / "orders" / f"{GAP_DAY}.csv").unlink()
    wait_for(lambda: "shop_backfill" in shop.stored_dags(), "shop_backfill to be stored", seconds=120, every=1)
    shop.sh("airflow", "dags", "unpause", "shop_backfill")  # no schedule: nothing runs until triggered
    started = time.monotonic()
    trigger(shop, "no_last", {"first": RANGE["first"]})
    trigger(shop, "first_half", RANGE)                      # max_active_runs=1: it waits for the first
    wait_for(lambda: all(run_state(shop, r) in DONE for r in ("no_last", "first_half")),
             "both shop_backfill runs to finish", 900, every=3)
    took = time.monotonic() - started

    assert run_state(shop, "no_last") == "failed"
    assert command_output(shop, "no_last") == (["attempt=1.log"], [
        """error: param 'last' is missing: trigger with --conf '{"first": "YYYY-MM-DD", "last": "YYYY-MM-DD"}'"""], 2)

    assert run_state(shop, "first_half") == "failed"
    attempts, printed, code = command_output(shop, "first_half")
    assert (attempts, code, len(printed)) == (["attempt=1.log"], 1, 16), printed
    assert printed[7] == f"8/14 run {GAP_RUN} failed: no file landing/orders/{GAP_DAY}.csv for run {GAP_RUN} " \
                         "(left out of commit 1 of 1)"
    assert re.fullmatch(r"commit 1 of 1: 13 days in one commit, 13 of 14 runs ok \(\d+\.\d\d s\)", printed[14])
    assert re.fullmatch(rf"ran 14 runs in 1 commit, 1 failed \({GAP_RUN}\); orders_daily has \d+ days, "
                        r"\d+ orders \(\d+\.\d s\)", printed[15]), printed[15]

    # The 13 other days landed, in one commit, each with its file's orders; 8 Sep has no rows.
    [newest] = shop.sh("python", "history.py", "--limit", "1").stdout.splitlines()
    assert re.fullmatch(r"version \d+ \| WRITE \| order_date IN 13 days 2026-09-01 \.\. 2026-09-14 \| 53 \| "
                        r"runs 2026-09-02 \.\. 2026-09-15 \| 13 files", newest), newest
    good_runs = [str(day) for day in run_dates(RANGE["first"], RANGE["last"]) if str(day) != GAP_RUN]
    checks = shop.sh("python", "-c", CHECK_LOADED_DAYS, *good_runs).stdout.splitlines()
    assert len(checks) == 14 and all(c.startswith("ok ") for c in checks[:-1]), checks
    in_range = [day for day in checks[-1].split()[3:] if day <= "2026-09-14"]
    assert in_range == [f"2026-09-{n:02d}" for n in range(1, 15) if n != 8]

    done = shop.sh("python", "check_month.py", "2026-09", "--today", "2026-10-01", check=False)
    problems = [line for line in done.stdout.splitlines() if re.match(r"PROBLEM 2026-09-(0\d|1[0-4]):", line)]
    assert (done.returncode, problems) == (1, [f"PROBLEM {GAP_DAY}: no file, 0 rows"]), done.stdout
    print(f"\nshop_backfill: a refused trigger and 14 runs in one commit, {took:.0f} s from trigger to both done")
