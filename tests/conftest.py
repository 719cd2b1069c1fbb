"""One Spark session for each pytest worker; every test works in a folder of its own."""
import datetime
import fcntl
import io
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import contextmanager, redirect_stdout
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shoptoolkit.engine.connect_server import alive
from shoptoolkit.storage.project_paths import ROOT_ENV, day_file, root_at
from shoptoolkit.till.new_columns import MODE_ENV, TYPES_ENV
from delta_session import delta_spark, orders_table, table_version  # noqa: E402,F401
from suite_jit import suite_session  # noqa: E402

# Python UDFs (support/holding.py's) run in worker processes started with PYSPARK_PYTHON, else `python3` on
# PATH, which may lack pyspark: the workers of the suite's session and of its script processes use this one.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

# py4j logs at INFO when it closes its connection at interpreter exit, after pytest has closed the
# stream its log handler writes to: the suite would end with a "--- Logging error ---" trace.
logging.getLogger("py4j").setLevel(logging.WARNING)
# The same for jupyter_client (the notebook tests' kernel client), whose context is closed at exit:
# "Could not destroy zmq context" at warning level, after pytest's summary.
logging.getLogger("traitlets").setLevel(logging.ERROR)

# The course's late order for 15 September, appended to that day's file after its load.
LATE_ORDER = "2131,C02,19.99,2026-09-15T20:30:00"
SEP_15 = datetime.date(2026, 9, 15)


# `make test` runs the suite on two pytest-xdist workers (one per core), each test file whole on one of
# them (--dist loadfile), the files handed out in the order below (--no-loadscope-reorder): every file,
# longest first by its time in a two-worker run (2026-12-07), so that the last files handed out are the
# shortest and the two workers end within seconds of each other (a worker takes its next file when two
# of its tests are left: a long file near the end left one worker idle for 100 s). test_pipeline.py comes
# second, out of its rank: it shares spark-pipelines' one local port with test_pipeline_dag.py (the
# pipeline_turn fixture), which comes once it has had time to end, or one worker would wait idle for the port.
# A file is named without its folder (tests/<domain>/); a file not named here follows, in its usual order.
LONGEST_FIRST = ["test_crash.py", "test_pipeline.py", "test_model_check.py", "test_bucket_lake.py",
                 "test_make.py", "test_pipeline_dag.py", "test_spark_server.py", "test_airflow_e2e.py",
                 "test_notebook.py", "test_cluster.py", "test_many_writers.py", "test_spark_check.py",
                 "test_cluster_year.py", "test_upkeep.py", "test_parallel.py", "test_day_truth.py",
                 "test_backfill_commits.py", "test_one_job.py", "test_new_columns.py",
                 "test_new_columns_commits.py", "test_new_columns_after.py", "test_bad_input.py",
                 "test_new_column_writers.py", "test_command_lines.py", "test_idempotence.py",
                 "test_pipeline_port.py", "test_restore_day.py", "test_load_and_check.py", "test_big_day.py",
                 "test_table_name.py", "test_late_clash.py", "test_day_record.py", "test_faults.py",
                 "test_readme.py", "test_reprocess.py", "test_storage.py", "test_backfill_progress.py",
                 "test_usage.py", "test_gcs.py", "test_dag.py", "test_databricks_tasks.py",
                 "test_pipeline_stop.py", "test_root.py", "test_log_store.py", "test_house.py",
                 "test_pipeline_lock.py", "test_driver_jvm.py", "test_databricks_bundle.py", "test_make_days.py",
                 "test_upkeep_dag.py", "test_upkeep_bundle.py", "test_mutants.py"]


# The slow runs of the whole (Airflow, the Databricks bundle, a cluster, a bucket, pipelines) live in this
# folder, each of its tests marked end_to_end: `pytest -m "not end_to_end" tests` runs the quick part.
END_TO_END = ROOT / "tests" / "end_to_end"


@pytest.hookimpl(tryfirst=True)  # the marks are on before -m "not end_to_end" deselects by them
def pytest_collection_modifyitems(items):
    rank = {name: place for place, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order
    for item in items:
        if END_TO_END in item.path.resolve().parents:
            item.add_marker(pytest.mark.end_to_end)


def pytest_addoption(parser):
    parser.addoption("--no-skips", action="store_true",
                     help="a skipped test is an error (make test: everything the suite needs is installed)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under --no-skips a skip (a skipif that held, pytest.skip) is reported as an error with its reason:
    a part of the suite left out by a missing package must not pass as a green run."""
    report = (yield).get_result()
    if report.skipped and item.config.getoption("no_skips"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped, and make test (--no-skips) admits no skip: {reason}"


@pytest.fixture(autouse=True)
def no_project_root():
    """Each test works below its own folders: SHOP_ROOT is unset before it (one left in the shell would
    point every test at one table) and after it (a script's --root run in the suite's process sets it)."""
    for name in (ROOT_ENV, MODE_ENV, TYPES_ENV):  # and no setting of new columns (--on-new-column sets it)
        os.environ.pop(name, None)
    yield
    for name in (ROOT_ENV, MODE_ENV, TYPES_ENV):
        os.environ.pop(name, None)


@pytest.fixture(scope="session")
def spark():
    session = suite_session("tests")  # C1 and the serial collector: support/suite_jit.py says why
    yield session
    session.stop()


@pytest.fixture(scope="session")
def september_template(spark, tmp_path_factory):
    """September's 30 files and the table after `python backfill.py 2026-09-02 2026-10-01`, run once per
    test run in this session; what it printed is kept in the folder's backfill.out. Under xdist the
    workers share one: the first to need it builds it in their common folder, holding a lock the
    other waits on, and tests only ever copy it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return backfilled_september(spark, tmp_path_factory.mktemp("september"))
    folder = tmp_path_factory.getbasetemp().parent / "september"  # this run's, beside the workers' own
    with open(folder.with_name("september.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not (folder / "backfill.out").exists():  # written last: a template is whole or absent
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            backfilled_september(spark, folder)
    return folder


@contextmanager
def pipeline_port_turn(tmp_path_factory):
    """While inside, no test on the other pytest worker runs a pipeline: spark-pipelines' local port is
    one for the machine (shoptoolkit/engine/pipeline_port.py), and a run that meets another test's run waits for
    it and says so, which tests that assert a run's lines (or that it did not wait) must not see. A lock
    in the folder the workers share, as september_template's."""
    with open(tmp_path_factory.getbasetemp().parent / "pipeline-port.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


@pytest.fixture
def pipeline_turn(tmp_path_factory):
    """pipeline_port_turn for the length of one test (pytestmark = pytest.mark.usefixtures("pipeline_turn"))."""
    with pipeline_port_turn(tmp_path_factory):
        yield


def backfilled_september(spark, folder: Path) -> Path:
    """make_days and backfill.py's main for September in folder, in this session; then backfill.out."""
    from backfill import main as backfill_main
    from make_days import make_days
    with root_at(folder), redirect_stdout(io.StringIO()) as printed:
        make_days()
        assert backfill_main(["2026-09-02", "2026-10-01"]) == 0
    closing = printed.getvalue().splitlines()[-1]
    assert closing.startswith("ran 30 runs, 0 failed; orders_daily has 30 days, 130 orders ("), closing
    (folder / "backfill.out").write_text(printed.getvalue(), encoding="utf-8")
    return folder


@pytest.fixture
def days(tmp_path, monkeypatch):
    """A fresh folder holding September's landing files and no table."""
    from make_days import make_days
    monkeypatch.chdir(tmp_path)
    make_days()
    return tmp_path


@pytest.fixture
def september(spark, september_template, tmp_path, monkeypatch):
    """A fresh folder holding September's files and its loaded table (a copy of the template).

    The name orders_daily is pointed at this copy, so plain SQL in a test reaches it."""
    for name in ("landing", "lake"):
        shutil.copytree(september_template / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    orders_table(spark)
    return tmp_path


def table_rows(spark, day=None) -> list:
    """Every row of orders_daily (or of one day) as sorted tuples, to compare content whole."""
    table = orders_table(spark)
    if day is not None:
        table = table.where(f"order_date = '{day}'")
    return sorted(tuple(row) for row in table.collect())


def append_line(day, line: str) -> None:
    with open(day_file(day), "a", encoding="utf-8") as handle:
        handle.write(line + "\n")


def run_script(*args, cwd, env=None) -> subprocess.CompletedProcess:
    """Run one of the scripts as a user would, in folder cwd (with env instead of this process's)."""
    return subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def group_members(group: int) -> list:
    """The live processes of a process group, by pid (alive: a thread that is not a zombie)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group and alive(int(stat.parent.name)):
            members.append(stat.parent.name)
    return members


@contextmanager
def own_group(command: list, **popen):
    """subprocess.Popen(command) in a process group of its own, the group SIGKILLed by its id on every way
    out of the block: an error, a pytest-timeout (its SIGALRM raises in the test), or the end after the
    command ended with a child left (a JVM). Nothing a test starts this way outlives the test."""
    process = subprocess.Popen(command, start_new_session=True, **popen)
    try:
        yield process
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass  # the command and all it started have ended
        process.wait()


def wait_for(condition, what: str, seconds: float, fail: bool = True, every: float = 2) -> bool:
    """Until condition() is true, checked every `every` seconds; an AssertionError naming what after
    seconds (or False, with fail=False)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(every)
    if fail:
        raise AssertionError(f"gave up after {seconds:.0f} s waiting for {what}")
    return False
