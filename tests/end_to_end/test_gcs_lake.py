"""The course on a Google Cloud Storage bucket: the scripts, in processes with their own Spark, print what they
print on a folder, with landing/ and lake/ in gs://shop/<test>/ on fake-gcs-server (make test-setup builds
it) on a loopback port, found through STORAGE_EMULATOR_HOST. Spark reaches it through Google's connector
(fetched on the first gs:// start) and commits through Delta's GCSLogStore; writers at once go ahead on a
store that refuses a second create of one object and are refused on one that does not; a load whose server
stops mid-write says so in one line and its rerun, the server back on its folder, loads the day.

    pytest tests/end_to_end/test_gcs_lake.py
"""
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from holding import release, wait_held
from local_gcs import BUCKET, LocalGcs
from relay import Proxy

pytestmark = pytest.mark.timeout(1200)  # September's backfill as a process on the bucket

SEPTEMBER = ("2026-09-02", "2026-10-01")
TIME = re.compile(r" \(\d+\.\d+ s\)$")
MONTH_OK = "ok 2026-09: all 30 days match their files, 130 orders"


@pytest.fixture(scope="module")
def gcs():
    with LocalGcs() as server:
        yield server


@pytest.fixture
def on_bucket(gcs, tmp_path):
    """The environment of a script run on gs://shop/<this test's folder name>/, as a user sets it."""
    return gcs.env(tmp_path.name)


def run(env, cwd, *args) -> tuple:
    done = subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, [TIME.sub("", line) for line in done.stdout.splitlines()], done.stderr


def test_september_on_a_gcs_bucket_prints_what_a_folder_prints(on_bucket, tmp_path, september_template):
    assert run(on_bucket, tmp_path, "make_days.py") == (
        0, ["wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders"], "")
    on_folder = [TIME.sub("", line) for line in (september_template / "backfill.out").read_text().splitlines()]
    assert run(on_bucket, tmp_path, "backfill.py", *SEPTEMBER) == (0, on_folder, "")
    code, month, err = run(on_bucket, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
    assert (code, month[0], month[-1], err) == (0, "September 2026: 30 ok", MONTH_OK, "")


def test_writers_at_once_go_ahead_where_a_second_create_is_refused_and_not_where_it_is_not(on_bucket, tmp_path):
    assert run(on_bucket, tmp_path, "make_days.py")[0] == 0
    code, lines, err = run(on_bucket, tmp_path, "backfill.py", "2026-09-02", "2026-09-03", "--parallel", "2")
    assert (code, err) == (0, "") and lines[-1] == "ran 2 runs, 0 failed; orders_daily has 2 days, 9 orders", lines
    with Proxy(on_bucket["STORAGE_EMULATOR_HOST"], query=("ifGenerationMatch",)) as proxy:
        env = {**on_bucket, "STORAGE_EMULATOR_HOST": proxy.url}
        refused = run(env, tmp_path, "parallel.py", "2026-09-04", "2026-09-05")
    assert proxy.dropped > 0
    assert refused == (1, [], f"error: gs://{BUCKET} does not refuse a second create of one object "
                             f"(ifGenerationMatch=0), so two writers at once could both commit one version of "
                             f"{on_bucket['SHOP_ROOT']}/lake/orders_daily, the second replacing the first: run one "
                             f"writer at a time there (no --parallel, no parallel.py)\n")


def test_a_load_whose_server_stops_fails_in_one_line_and_its_rerun_loads_the_day(tmp_path):
    """The server goes away while a load's rows are held inside its write (tests/support/holding.py), then
    comes back on its port with its folder: the load said so in one line and committed nothing; its rerun
    loads the day. The connector's retries are cut short through spark-defaults.conf, as a user passes any
    fs.gs.* setting."""
    conf, hold, objects = tmp_path / "conf", tmp_path / "hold", tmp_path / "objects"
    for folder in (conf, hold, objects):
        folder.mkdir()
    (conf / "spark-defaults.conf").write_text("spark.hadoop.fs.gs.http.max.retry 1\n")
    with LocalGcs(folder=objects) as gcs:
        env = {**gcs.env(tmp_path.name), "SPARK_CONF_DIR": str(conf)}
        assert run(env, tmp_path, "make_days.py")[0] == 0
        assert run(env, tmp_path, "load_day.py", "2026-09-02")[0] == 0
        writer = subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "holding.py"), str(hold), "load_day.py",
                                   "2026-09-16"], cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        try:
            wait_held(hold, 1, lambda: [writer.communicate()] if writer.poll() is not None else [])
        except BaseException:
            writer.kill()
            raise
    try:  # the server has stopped, the write is still held: let it go on
        release(hold)
        out, err = writer.communicate(timeout=600)
    finally:
        if writer.poll() is None:
            writer.kill()
    assert (writer.returncode, out, err) == (1, "", f"error: cannot reach gs://{BUCKET}/{tmp_path.name}: no answer "
                                                    f"from {gcs.url}/ (STORAGE_EMULATOR_HOST)\n")
    with LocalGcs(gcs.port, folder=objects):  # started again, on what it held
        code, month, _ = run(env, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
        assert (code, month[0]) == (1, "September 2026: 1 ok, 29 missing")  # nothing of the 15th landed
        assert run(env, tmp_path, "load_day.py", "2026-09-16") == (
            0, ["run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 7"], "")
