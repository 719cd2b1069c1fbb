"""The project root on Google Cloud Storage: SHOP_ROOT=gs://BUCKET/PREFIX puts landing/ and lake/ in a
bucket, reached outside Spark through shoptoolkit/storage/, with the same bytes and the same words as below
a folder. fake-gcs-server (built by make test-setup) on a loopback port stands in for the store, found
where Google's own clients look (STORAGE_EMULATOR_HOST). No Spark starts here.

    pytest tests/storage/test_gcs.py
"""
import json
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import SEP_15
from failed_day import failed_day_line, main as failed_day_main
from local_gcs import BUCKET, LocalGcs, free_port
from make_days import main as make_days_main, make_days
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.location import location
from shoptoolkit.storage.project_paths import day_file, landing_dir, root_at

SEP_20 = SEP_15.replace(day=20)


@pytest.fixture(scope="module")
def gcs_server():
    """fake-gcs-server on a free loopback port, in a process group of its own, its bucket made; its URL."""
    with LocalGcs() as server:
        yield server.url


@pytest.fixture
def gcs(gcs_server, tmp_path, monkeypatch):
    """A prefix of the bucket of this test's own (gs://shop/<test folder>), the server set in the
    environment; SHOP_ROOT is left unset."""
    monkeypatch.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", gcs_server)
    monkeypatch.chdir(tmp_path)
    return f"gs://{BUCKET}/{tmp_path.name}"


def names(gcs_server, root: str, below: str = "") -> list:
    """The bucket's objects below root/below, as the server's JSON API lists them (not through the toolkit)."""
    prefix = f"{root.split('/', 3)[3]}/{below}"
    query = urllib.parse.urlencode({"prefix": prefix})
    with urllib.request.urlopen(f"{gcs_server}/storage/v1/b/{BUCKET}/o?{query}", timeout=10) as answer:
        listed = json.load(answer).get("items", [])
    return sorted(item["name"][len(prefix):] for item in listed)


def september(root) -> dict:
    """make_days() below root: {file name: bytes} as read back."""
    with root_at(root):
        written, orders = make_days()
        assert (len(written), orders) == (30, 130)
        return {path.name: path.read_bytes() for path in landing_dir().iterdir()}


def test_make_days_writes_the_same_bytes_to_a_bucket_as_to_a_folder(gcs, gcs_server, tmp_path, capsys):
    local, remote = september(tmp_path / "local"), september(gcs)
    assert remote == local and len(local) == 30
    assert names(gcs_server, gcs, "landing/orders/") == sorted(local)
    assert make_days_main(["--root", gcs]) == 0
    assert capsys.readouterr().out == "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders\n"
    assert str(day_file(SEP_15)) == f"{gcs}/landing/orders/2026-09-15.csv"  # what Spark is given


def test_failed_day_says_the_same_line_of_a_bucket_as_of_a_folder(gcs, tmp_path):
    lines = {}
    for root in (tmp_path / "local", gcs):
        september(root)
        with root_at(root):
            day_file(SEP_20).unlink()
            day_file(SEP_15).write_text("order_id,customer_id,amount,ordered_at\n7,C1,1.00,2026-09-15T25:00:00\n")
            lines[str(root)] = [failed_day_line(run) for run in ("2026-09-16", "2026-09-20", "2026-09-21")]
    local, remote = lines.values()
    assert remote == local == [
        "FAILED run 2026-09-16: day 2026-09-15 is not loaded and checked; bad file (landing/orders/2026-09-15.csv "
        "line 2: ordered_at '2026-09-15T25:00:00' is not a timestamp like 2026-09-15T20:30:00)",
        "FAILED run 2026-09-20: day 2026-09-19 is not loaded and checked; landing/orders/2026-09-19.csv reads fine "
        "(5 orders): the table or Spark failed, see the load_day and check_day output",
        "FAILED run 2026-09-21: day 2026-09-20 is not loaded and checked; no file landing/orders/2026-09-20.csv"]


def test_a_missing_bucket_is_one_line_naming_the_root(gcs, monkeypatch, capsys):
    monkeypatch.setenv("SHOP_ROOT", "gs://nobucket/course")
    assert failed_day_main(["2026-09-21"]) == 1
    assert capsys.readouterr().err == "error: cannot reach gs://nobucket/course: the bucket nobucket does not exist\n"
    with pytest.raises(SystemExit) as usage:
        make_days_main(["--root", "gs://nobucket/course"])
    assert usage.value.code == 2 and capsys.readouterr().err.splitlines()[-1].endswith(
        " error: argument --root: cannot reach gs://nobucket/course: the bucket nobucket does not exist")


def test_a_server_that_does_not_answer_is_one_line_naming_it(gcs, monkeypatch):
    port = free_port()  # nothing listens there
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SHOP_ROOT", "gs://shop/course")
    with pytest.raises(ToolkitError) as refused:
        day_file(SEP_15).exists()
    assert str(refused.value) == (f"cannot reach gs://shop/course: no answer from http://127.0.0.1:{port}/ "
                                  f"(STORAGE_EMULATOR_HOST)")


def upload(gcs_server, key: str, body: bytes) -> int:
    """A create of key only if no object has that name (GCS's JSON API, ifGenerationMatch=0): its status."""
    query = urllib.parse.urlencode({"uploadType": "media", "name": key, "ifGenerationMatch": "0"})
    request = urllib.request.Request(f"{gcs_server}/upload/storage/v1/b/{BUCKET}/o?{query}", data=body,
                                     method="POST", headers={"Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def test_the_server_refuses_a_second_create_of_one_object(gcs, gcs_server):
    """What Delta's GCSLogStore counts on for writers at once: a create with ifGenerationMatch=0 of a name
    that exists is refused (412), and the first object stays."""
    key = f"{gcs.split('/', 3)[3]}/lake/orders_daily/_delta_log/00000000000000000000.json"
    assert upload(gcs_server, key, b"first") == 200
    assert upload(gcs_server, key, b"second") == 412
    assert location(f"gs://{BUCKET}/{key}").read_bytes() == b"first"
