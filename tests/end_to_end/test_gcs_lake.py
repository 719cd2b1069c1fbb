"""The course on a Google Cloud Storage bucket: the scripts, in processes with their own Spark, print what they
print on a folder, with landing/ and lake/ in gs://shop/<test>/ on fake-gcs-server (make test-setup builds
it) on a loopback port, found through STORAGE_EMULATOR_HOST. Spark reaches it through Google's connector
(fetched on the first gs:// start) and commits through Delta's GCSLogStore; writers at once go ahead on a
store that refuses a second create of one object and are refused on one that does not.

    pytest tests/end_to_end/test_gcs_lake.py
"""
import re
import subprocess
import sys

import pytest

from conftest import ROOT
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
