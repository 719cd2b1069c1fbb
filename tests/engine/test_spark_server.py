"""The warm Spark Connect server: start/status/stop, and every script through it with the same lines.

    flock /tmp/jvm.lock .venv/bin/python -m pytest -q tests/engine/test_spark_server.py

One server for the module, started as a user does (eval of `python spark_server.py start`) in a
temporary project folder; its tests run in order on that folder's table. No local JVM is started here.
"""
import datetime as dt
import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys

import pytest

from conftest import LATE_ORDER, ROOT, SEP_15, append_line, group_members, run_script
from holding import ended_processes, release, wait_held
from suite_jit import server_env
from shoptoolkit.dates import day_loaded_by, run_dates
from shoptoolkit.engine.connect_server import alive, answers
from shoptoolkit.truth.day_compare import compare_day, file_ids
from shoptoolkit.truth.day_record import file_sha256
from shoptoolkit.truth.day_truth import DayState
from shoptoolkit.truth.month_calendar import draw_calendar
from shoptoolkit.truth.verdict import state_of
from check_month import month_days, month_verdict
from make_days import DAY_COUNTS

pytestmark = pytest.mark.timeout(1200)  # the module's server starts in the first test's setup (up to 400 s)

SEPTEMBER = dt.date(2026, 9, 1)
TIME = re.compile(r" \(\d+\.\d\d? s\)$")
PLACE = re.compile(r"^\d+/\d+ ")  # backfill.py's place on a terminal (tests/writing/test_backfill_progress.py)


def client_env(remote=None) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("SPARK_REMOTE", "SPARK_CONNECT_AUTHENTICATE_TOKEN") and not k.startswith("SHOP_")}
    return {**env, "SPARK_REMOTE": remote} if remote else env


def start_server(folder) -> dict:
    """`eval "$(python spark_server.py start)"` in folder, as a user does: {folder, line, remote, pid, port};
    an AssertionError with start's stderr when it failed."""
    shell = f'line=$({shlex.quote(sys.executable)} {ROOT / "spark_server.py"} start) || exit; ' \
            'printf "%s\\n" "$line"; eval "$line"; printf "%s\\n" "$SPARK_REMOTE"'
    done = subprocess.run(["bash", "-c", shell], cwd=folder, env=server_env(client_env()), capture_output=True,
                          text=True, timeout=400)
    assert done.returncode == 0, done.stderr
    line, remote = done.stdout.splitlines()
    return {"folder": folder, "line": line, "remote": remote,
            **json.loads((folder / ".spark_server" / "server.json").read_text())}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """One server in a fresh project folder: {folder, line, remote, pid, port}; always stopped after.
    A test that kills it starts the next one in its place (the dict then holds the new one's)."""
    folder = tmp_path_factory.mktemp("project")
    try:
        yield start_server(folder)
    finally:
        if (folder / ".spark_server").exists():
            run_script("spark_server.py", "stop", cwd=folder, env=client_env())


def run(server, *args, folder=None):
    return run_script(*args, cwd=folder or server["folder"], env=client_env(server["remote"]))


def lines_of(done) -> list:
    assert done.stderr == "", done.stderr
    return [PLACE.sub("", TIME.sub("", line)) for line in done.stdout.splitlines()]


def test_start_prints_one_export_line_and_status_says_up(server):
    token = (server["folder"] / ".spark_server" / "token")
    assert server["line"] == f"export SPARK_REMOTE='sc://localhost:{server['port']}/;token={token.read_text()}'"
    assert token.stat().st_mode & 0o777 == 0o600
    done = run_script("spark_server.py", "status", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout) == (0, f"Spark server up: pid {server['pid']}, port {server['port']}, "
                                                 f"log logs/spark_server.log\n")
    assert not (server["folder"] / "logs" / "warmup").exists()


def test_env_prints_the_export_line_again_for_another_shell(server):
    done = run_script("spark_server.py", "env", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout, done.stderr) == (0, server["line"] + "\n", "")


def test_a_second_start_is_refused_and_starts_nothing(server):
    state = (server["folder"] / ".spark_server" / "server.json").read_text()
    done = run_script("spark_server.py", "start", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"error: a Spark server is already running here (pid {server['pid']}, port "
                           f"{server['port']}); python spark_server.py stop ends it\n")
    assert (server["folder"] / ".spark_server" / "server.json").read_text() == state


def test_make_days_and_a_week_of_backfill(server):
    assert lines_of(run(server, "make_days.py")) == [
        "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders"]
    expected, total = [], 0
    for run_date in run_dates("2026-09-10", "2026-09-16"):
        day = day_loaded_by(run_date)
        rows = DAY_COUNTS[day.day - 1]
        total += rows
        expected.append(f"run {run_date} loaded {day}: {rows} rows, orders_daily has {total}; "
                        f"ok {day}: {rows} rows for the file's {rows} orders, 0 missing")
    expected.append(f"ran 7 runs, 0 failed; orders_daily has 7 days, {total} orders")
    assert lines_of(run(server, "backfill.py", "2026-09-10", "2026-09-16")) == expected


def test_a_course_script_reads_orders_daily_by_name_through_the_server(server):
    """tests/support/course_month.py (delta_session and plain PySpark) as a client of the warm server, after the week."""
    done = run_script("tests/support/course_month.py", "2026-09", cwd=server["folder"],
                      env={**client_env(server["remote"]), "PYTHONPATH": str(ROOT)})
    week = sum(DAY_COUNTS[8:15])  # days 9 .. 15 September
    assert (done.returncode, done.stdout, done.stderr) == (0, f"2026-09: 7 days, {week} orders\n", "")


def test_a_late_order_loaded_by_hand_then_checked_and_in_the_history(server, monkeypatch):
    monkeypatch.chdir(server["folder"])
    loaded = file_sha256(SEP_15)
    append_line(SEP_15, LATE_ORDER)
    assert lines_of(run(server, "load_day.py", "2026-09-16")) == [
        "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 29"]
    assert lines_of(run(server, "check_day.py", "2026-09-16")) == [
        "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing"]
    assert lines_of(run(server, "history.py", "--limit", "2")) == [
        f"version 7 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file {file_sha256(SEP_15)[:12]}",
        f"version 6 | WRITE | order_date = DATE'2026-09-15' | 3 | run 2026-09-16 | file {loaded[:12]}"]


def test_parallel_backfill(server):
    done = run(server, "backfill.py", "2026-09-17", "2026-09-20", "--parallel", "2")
    found = lines_of(done)
    retries = [line for line in found if " lost a write conflict " in line]  # as locally: no partitions
    assert all(re.fullmatch(r"run 2026-09-(17|18|19|20) lost a write conflict \(DELTA_CONCURRENT_APPEND"
                            r"\.WITHOUT_HINT\); attempt [2-8] of 8 in \d+\.\d s", line) for line in retries), retries
    runs = sorted(re.sub(r"orders_daily has \d+", "orders_daily has N", line)
                  for line in found[:-1] if line not in retries)
    assert runs == [f"run {run_date} loaded {day_loaded_by(run_date)}: {rows} rows, orders_daily has N; "
                    f"ok {day_loaded_by(run_date)}: {rows} rows for the file's {rows} orders, 0 missing"
                    for run_date, rows in zip(run_dates("2026-09-17", "2026-09-20"), DAY_COUNTS[15:19])]
    assert (done.returncode, found[-1]) == (0, "ran 4 runs, 0 failed; orders_daily has 11 days, 49 orders")


def expected_month(loaded_sha: dict) -> str:
    """check_month's output as the local code draws it, from the files here and the days loaded
    (day: the sha256 its load recorded); 15 September's rows also hold the late order."""
    states = []
    for day in month_days(SEPTEMBER):
        ids = [*file_ids(day)[0], *([2131] if day == SEP_15 else [])] if day in loaded_sha else []
        matches, message = compare_day(day, *file_ids(day), ids)
        loaded = {"sha256": loaded_sha[day], "run_date": str(day + dt.timedelta(days=1))} if day in loaded_sha else {}
        state = state_of(day, matches, len(ids), file_sha256(day), loaded, dt.date(2026, 10, 31))
        states.append(DayState(day, state, matches, message, len(ids), file_sha256(day), loaded))
    return "\n".join(draw_calendar(SEPTEMBER, states) + [""] + month_verdict(SEPTEMBER, states)[1]) + "\n"


def test_check_month_then_reprocess_changed_reruns_only_the_changed_day(server, monkeypatch):
    monkeypatch.chdir(server["folder"])
    with_late = file_sha256(SEP_15)
    run(server, "make_days.py")  # the till sends 15 September's file again, without the late order
    loaded = {day: file_sha256(day) for day in run_dates("2026-09-09", "2026-09-19")}
    loaded[SEP_15] = with_late
    done = run(server, "check_month.py", "2026-09", "--today", "2026-10-31")
    assert (done.returncode, done.stderr, done.stdout) == (1, "", expected_month(loaded))
    assert "15 changed" in done.stdout
    assert lines_of(run(server, "backfill.py", "2026-09-10", "2026-09-16", "--reprocess", "changed")) == [
        "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 48; "
        "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing",
        "ran 1 runs, 0 failed, 6 skipped; orders_daily has 11 days, 48 orders"]


# A long-lived client in the first folder: it registers orders_daily, then on each line it reads
# (the test's go-ahead) prints the view's count and whether every file it reads is this folder's.
LONG_LIVED_CLIENT = """
import sys
from pyspark.sql import SparkSession
from delta_session import orders_table
from shoptoolkit.storage.project_paths import table_path
mine = SparkSession.builder.remote(sys.argv[1]).getOrCreate()
print(orders_table(mine).count(), flush=True)
for _ in sys.stdin:
    view = mine.table("orders_daily")
    print(view.count(), all(str(table_path()) in name for name in view.inputFiles()), flush=True)
mine.stop()
"""


def test_another_folder_has_its_own_orders_daily_and_the_name_sees_each_commit(server, tmp_path, monkeypatch):
    monkeypatch.chdir(server["folder"])
    mine = subprocess.Popen([sys.executable, "-c", LONG_LIVED_CLIENT, server["remote"]], cwd=server["folder"],
                            env={**client_env(), "PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)

    def view_of_mine() -> str:
        mine.stdin.write("\n")
        mine.stdin.flush()
        return mine.stdout.readline().strip()
    try:
        assert mine.stdout.readline().strip() == "48"
        other = tmp_path / "other_project"
        other.mkdir()
        run(server, "make_days.py", folder=other)
        # parallel.py with its runs ordered by tests/support/holding.py's first_loses: the first run's write is
        # held while the three others commit, so the outcome is forced (3 of 4), not left to the race.
        found = lines_of(run(server, "tests/support/holding.py", "--first-loses", "hold", "parallel.py", folder=other))
        assert found[0] == "created orders_daily empty first, so that the runs do not race to create it"
        assert re.fullmatch(r"[1-4] of 4 runs succeeded; orders_daily holds whole days only.*", found[-1])
        assert found[1] == "run 2026-09-02 failed: DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
        assert [re.sub(r"has \d+$", "has N", line) for line in found[2:5]] == [
            f"run {run_date} loaded {day_loaded_by(run_date)}: {rows} rows, orders_daily has N"
            for run_date, rows in zip(run_dates("2026-09-03", "2026-09-05"), DAY_COUNTS[1:4])]
        assert found[-1] == ("3 of 4 runs succeeded; orders_daily holds whole days only; "
                             "load the others with: python backfill.py 2026-09-02 2026-09-02")
        assert view_of_mine() == "48 True"  # the other client's view did not repoint mine
        append_line(SEP_15, LATE_ORDER)
        assert lines_of(run(server, "load_day.py", "2026-09-16")) == [
            "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 49"]
        assert view_of_mine() == "49 True"  # a commit by another session: the view sees it
    finally:
        mine.stdin.close()
        assert mine.wait(timeout=120) == 0


def test_a_month_in_one_commit_through_the_server(server, tmp_path):
    """backfill.py --days-per-commit all as a Connect client, in a folder of its own: a missing day is left out."""
    folder = tmp_path / "one_commit"
    folder.mkdir()
    run(server, "make_days.py", folder=folder)
    (folder / "landing" / "orders" / "2026-09-20.csv").unlink()
    found = lines_of(run(server, "backfill.py", "2026-09-02", "2026-10-01", "--days-per-commit", "all",
                         folder=folder))
    assert found[0] == ("run 2026-09-02 loaded 2026-09-01: 4 rows, orders_daily has 127; "
                        "ok 2026-09-01: 4 rows for the file's 4 orders, 0 missing (commit 1 of 1)")
    assert found[19] == ("run 2026-09-21 failed: no file landing/orders/2026-09-20.csv for run 2026-09-21 "
                         "(left out of commit 1 of 1)")
    assert found[30:] == ["commit 1 of 1: 29 days in one commit, 29 of 30 runs ok",
                          "ran 30 runs in 1 commit, 1 failed (2026-09-21); orders_daily has 29 days, 127 orders"]
    assert lines_of(run(server, "history.py", folder=folder)) == [
        "version 0 | WRITE | order_date IN 29 days 2026-09-01 .. 2026-09-30 | 127 | runs 2026-09-02 .. 2026-10-01 "
        "| 29 files"]


@pytest.mark.parametrize("token", ["", ";token=wrong"])
def test_a_client_without_the_right_token_is_refused_in_one_line(server, token):
    done = run_script("check_day.py", "2026-09-16", cwd=server["folder"],
                      env=client_env(f"sc://localhost:{server['port']}/{token}"))
    assert (done.returncode, done.stdout) == (1, "")
    assert re.fullmatch(r"error: Spark Connect refused the request \(UNAUTHENTICATED\): \w[\w ]+; "
                        r"SPARK_REMOTE needs the server's token \(python spark_server.py env prints it\)\n",
                        done.stderr), done.stderr


# The whole table through a client of the server: (content fingerprint, version), as tests/support/fingerprint.py has it.
TABLE_STATE = """
import hashlib
from delta_session import delta_spark, orders_table, table_version
spark = delta_spark("state")
rows = sorted(tuple(row) for row in orders_table(spark).collect())
print(hashlib.sha256(repr(rows).encode()).hexdigest(), table_version(spark))
"""


def table_state(server) -> str:
    done = subprocess.run([sys.executable, "-c", TABLE_STATE], cwd=server["folder"], capture_output=True, text=True,
                          env={**client_env(server["remote"]), "PYTHONPATH": str(ROOT)}, timeout=300)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


def test_a_server_killed_mid_commit_leaves_the_table_whole_and_a_new_one_reruns(server, monkeypatch):
    """SIGKILL to the server's JVM while a client's load is inside its Delta transaction (its rows held
    by tests/support/holding.py): the client says so in one line, status clears the dead server's state, a new
    start works and the rerun lands. The next tests use the new server."""
    monkeypatch.chdir(server["folder"])
    before, old = table_state(server), dict(server)
    append_line(dt.date(2026, 9, 20), "2132,C03,4.50,2026-09-20T21:30:00")
    hold = server["folder"] / "hold"
    hold.mkdir()
    client = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "holding.py"), str(hold), "load_day.py",
                               "2026-09-21"], cwd=server["folder"], env=client_env(server["remote"]),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_held(hold, 1, ended_processes([client]))
        os.kill(old["pid"], signal.SIGKILL)  # the JVM alone, as the kernel's OOM killer would
        out, err = client.communicate(timeout=120)
    finally:
        release(hold)  # the server's Python worker, still holding the rows, ends
        if client.poll() is None:
            client.kill()
        if group_members(old["pid"]):
            os.killpg(old["pid"], signal.SIGKILL)
    assert (client.returncode, out) == (1, "")
    assert err == (f"error: the Spark Connect server at sc://localhost:{old['port']} (SPARK_REMOTE) went away "
                   f"(UNAVAILABLE); a commit it was making landed whole or not at all: see "
                   f"python spark_server.py status, start it again and rerun\n")
    done = run_script("spark_server.py", "status", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout) == (1, f"no Spark server is running here (pid {old['pid']}, port "
                                                 f"{old['port']} has ended: removed its stale .spark_server/)\n")
    assert not (server["folder"] / ".spark_server").exists()
    server.update(start_server(server["folder"]))
    assert server["pid"] != old["pid"] and table_state(server) == before  # nothing of the killed commit
    assert lines_of(run(server, "load_day.py", "2026-09-21")) == [
        "run 2026-09-21 loaded 2026-09-20: 4 rows, orders_daily has 53"]
    assert lines_of(run(server, "check_day.py", "2026-09-21")) == [
        "ok 2026-09-20: 4 rows for the file's 4 orders, 0 missing"]


def test_stop_ends_the_server_and_frees_its_port(server):
    done = run_script("spark_server.py", "stop", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout) == (0, f"stopped the Spark server (pid {server['pid']}, port "
                                                 f"{server['port']}); unset SPARK_REMOTE in your shell\n")
    assert not alive(server["pid"]) and not (server["folder"] / ".spark_server").exists()
    done = run_script("spark_server.py", "status", cwd=server["folder"], env=client_env())
    assert (done.returncode, done.stdout) == (1, "no Spark server is running here\n")
    assert not answers(server["port"])
    with socket.socket() as probe:  # free again for a new server: only a listening socket would block this bind;
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # closed connections may sit in TIME_WAIT
        probe.bind(("127.0.0.1", server["port"]))
        probe.listen()
    done = run(server, "check_day.py", "2026-09-16")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith(f"error: no Spark Connect server answers at sc://localhost:{server['port']} ")
