"""The scripts on a Spark standalone cluster print the same lines and build the same table as in local mode.

    flock /tmp/jvm.lock timeout 900 .venv/bin/python -m pytest -q -s tests/end_to_end/test_cluster.py   # -s: the figures

One master and one worker (1 core, 1 GB) from pyspark's own jars on 127.0.0.1, with spark.authenticate
(tests/support/standalone.py). The same commands run as processes once against it (SPARK_MASTER, the secret in
SPARK_AUTHENTICATE_SECRET), and once in local mode in this test run's own session, each in its own folder: make_days, a week's backfill,
a late order for 5 September and its reload, the month check. (A backfill in one commit on a cluster of
two workers: test_cluster_year.py.) Every socket the daemons, the executors and
the drivers listen on is on loopback.
"""
import re
import subprocess
import sys
import time

import pytest

from conftest import ROOT, alive, group_members, own_group, table_rows
from standalone import StandaloneCluster, is_loopback, listening

pytestmark = pytest.mark.timeout(1200)  # a master, a worker and the scripts on them: 2 to 6 minutes in CI

WEEK = ("2026-09-02", "2026-09-08")  # loads 1 to 7 September
LATE_ORDER_5TH = "2131,C02,19.99,2026-09-05T20:30:00"
COMMANDS = (("make_days.py",), ("backfill.py", *WEEK), ("load_day.py", "2026-09-06"),
            ("check_month.py", "2026-09", "--today", "2026-09-09"))
MONTH_ON_THE_9TH = [
    "September 2026: 7 ok, 1 missing, 22 future",
    "Mon        Tue        Wed        Thu        Fri        Sat        Sun",
    "            1 ok       2 ok       3 ok       4 ok       5 ok       6 ok",
    " 7 ok       8 missing  9 future  10 future  11 future  12 future  13 future",
    "14 future  15 future  16 future  17 future  18 future  19 future  20 future",
    "21 future  22 future  23 future  24 future  25 future  26 future  27 future",
    "28 future  29 future  30 future",
    ""]
TIME = re.compile(r" \((\d+\.\d+) s\)$")
PLACE = re.compile(r"^\d+/\d+ ")  # backfill.py's place on the terminal; backfill() shows no place


def run_watched(script_args, folder, env, groups=()) -> tuple:
    """Run a script; return (exit code, stdout, stderr, addresses its driver listened on, and the groups').
    The script runs in a group of its own, stopped with it on every way out (conftest.own_group)."""
    with own_group([sys.executable, str(ROOT / script_args[0]), *script_args[1:]], cwd=folder, env=env,
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        driver, others = set(), set()
        while process.poll() is None:
            driver |= listening([process.pid])
            others |= listening(groups)
            time.sleep(0.3)
        out, err = process.communicate(timeout=300)
    return process.returncode, out, err, driver, others


def run_commands(folder, env, groups=()) -> tuple:
    """Every command in turn, the late order appended before the reload; return (results, addresses)."""
    folder.mkdir()
    results, addresses = [], set()
    for command in COMMANDS:
        if command[0] == "load_day.py":
            with open(folder / "landing" / "orders" / "2026-09-05.csv", "a") as day:
                day.write(LATE_ORDER_5TH + "\n")
        code, out, err, driver, others = run_watched(command, folder, env, groups)
        assert err == "", (command, err)
        results.append((code, [TIME.sub("", line) for line in out.splitlines()], out))
        addresses |= driver | others
        if command[0] == "backfill.py":
            assert driver, "the backfill's driver was never seen listening"
    return results, addresses


def local_mode(spark, folder, monkeypatch, capsys) -> list:
    """The same commands in local mode, in this test run's own Spark session: [(exit code, lines)]."""
    from backfill import backfill
    from check_month import main as check_month_main
    from load_day import load_day
    from make_days import main as make_days_main
    folder.mkdir()
    monkeypatch.chdir(folder)
    capsys.readouterr()
    results = [(make_days_main([]), capsys.readouterr().out.splitlines())]
    lines = []
    failed, closing = backfill(spark, *WEEK, show=lines.append)
    results.append((1 if failed else 0, [TIME.sub("", line) for line in lines] + [closing]))
    with open(folder / "landing" / "orders" / "2026-09-05.csv", "a") as day:
        day.write(LATE_ORDER_5TH + "\n")
    results.append((0, [load_day(spark, "2026-09-06")]))
    results.append((check_month_main(list(COMMANDS[3][1:])), capsys.readouterr().out.splitlines()))
    return results


def seconds(out: str) -> float:
    return float(TIME.search(out.splitlines()[-1]).group(1))


def test_the_scripts_on_a_standalone_cluster_print_and_write_as_in_local_mode(tmp_path, request, monkeypatch,
                                                                             capsys):
    (tmp_path / "daemons").mkdir()
    with StandaloneCluster(tmp_path / "daemons") as cluster:
        groups = cluster.groups()
        on_cluster, addresses = run_commands(tmp_path / "cluster", cluster.driver_env(), groups)
        # The course's way: delta_session's session, then plain PySpark on the name orders_daily.
        course = run_watched(("tests/support/course_month.py", "2026-09"), tmp_path / "cluster",
                             {**cluster.driver_env(), "PYTHONPATH": str(ROOT)})[:3]
        cluster.wait_for(lambda state: len(state["completedapps"]) == 4, "the 4 applications to end", 60)
        apps = sorted(app["name"] for app in cluster.state()["completedapps"])
    assert [group_members(group) for group in groups] == [[], []]
    assert apps == ["backfill", "check_month", "check_month", "load_day"]
    assert len(list((tmp_path / "daemons" / "work").glob("app-*/0/stderr"))) == 4  # an executor each
    assert course == (0, "2026-09: 7 days, 29 orders\n", "")  # the week and 5 September's late order
    assert {port for _, port in addresses} >= {cluster.port, cluster.ui_port, cluster.worker_ui_port}
    assert [address for address in addresses if not is_loopback(address[0])] == []

    in_local_mode = local_mode(request.getfixturevalue("spark"), tmp_path / "local", monkeypatch, capsys)
    assert [(code, [PLACE.sub("", line) for line in lines]) for code, lines, _ in on_cluster] == in_local_mode
    (make, wrote), (backfill, lines), (load, reload), (check, month) = [(c, lines) for c, lines, _ in on_cluster]
    assert (make, backfill, load) == (0, 0, 0)
    assert wrote == ["wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders"]
    assert len(lines) == 8 and all(line.startswith(f"{n}/7 run 2026-09-0{n + 1} ") for n, line in
                                   zip(range(1, 8), lines))
    assert lines[0].startswith("1/7 run 2026-09-02 loaded 2026-09-01: 4 rows, orders_daily has 4; ok ")
    assert lines[-1] == "ran 7 runs, 0 failed; orders_daily has 7 days, 28 orders"
    assert reload == ["run 2026-09-06 loaded 2026-09-05: 4 rows, orders_daily has 29"]
    assert (check, month[:8]) == (1, MONTH_ON_THE_9TH)
    assert month[-1] == "PROBLEM 2026-09: 1 of 8 days up to 2026-09-08 do not match (22 future)"  # 8 Sep missing
    print(f"\ncluster up in {cluster.started_in:.1f} s; the week's backfill: {seconds(on_cluster[1][2]):.1f} s "
          f"on the cluster")

    spark = request.getfixturevalue("spark")
    rows = table_rows(spark)  # the local folder's table
    monkeypatch.chdir(tmp_path / "cluster")
    assert table_rows(spark) == rows and len(rows) == 29
    assert (2131, "C02") in [row[:2] for row in rows]


def test_the_driver_keeps_to_loopback_only_for_a_master_on_this_machine_and_reads_the_secret():
    from shoptoolkit.engine.spark_settings import LOCAL_SETTINGS, master_settings
    for master in ("local[*]", "local[2]", "spark://127.0.0.1:7077", "spark://localhost:7077"):
        assert master_settings(master, {}) == LOCAL_SETTINGS, master
    for master in ("spark://10.1.2.3:7077", "spark://127.0.0.1.example.com:7077", "yarn", "k8s://https://k:443"):
        assert master_settings(master, {}) == {}, master
    assert master_settings("yarn", {"SPARK_AUTHENTICATE_SECRET": "s3"}) == {
        "spark.authenticate": "true", "spark.authenticate.secret": "s3"}
    assert master_settings("spark://127.0.0.1:7077", {"SPARK_AUTHENTICATE_SECRET": ""}) == LOCAL_SETTINGS


HANGING = '''
import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])  # in the group, as a JVM is
open(sys.argv[1], "w").write(f"{os.getpid()} {child.pid}")
time.sleep(600)
'''
TIMED_OUT = '''
import sys
sys.path[:0] = {paths!r}  # test_cluster's folder, conftest's, the helpers'
import pytest
from test_cluster import run_watched

@pytest.mark.timeout(10)
def test_hangs(tmp_path):
    run_watched(({hanging!r}, {pids!r}), tmp_path, None)
'''


def test_a_script_still_running_when_its_test_times_out_is_stopped_with_its_group(tmp_path):
    """A real pytest-timeout while run_watched waits on a script that never ends (it and a child of its own):
    the test fails, and neither process outlives it."""
    (tmp_path / "hanging.py").write_text(HANGING)
    pids = tmp_path / "pids"
    paths = [str(ROOT / "tests" / "end_to_end"), str(ROOT / "tests"), str(ROOT / "tests" / "support")]
    (tmp_path / "test_timed_out.py").write_text(TIMED_OUT.format(paths=paths, pids=str(pids),
                                                                 hanging=str(tmp_path / "hanging.py")))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           str(tmp_path / "test_timed_out.py")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "Timeout (>10.0s)" in done.stdout, done.stdout[-2000:]
    script, child = map(int, pids.read_text().split())
    assert [pid for pid in (script, child) if alive(pid)] == []
