"""The project root on Google Cloud Storage: SHOP_ROOT=gs://BUCKET/PREFIX puts landing/ and lake/ in a
bucket, reached outside Spark through shoptoolkit/storage/, with the same bytes and the same words as below
a folder. fake-gcs-server (built by make test-setup) on a loopback port stands in for the store, found
where Google's own clients look (STORAGE_EMULATOR_HOST). No Spark starts here.

    pytest tests/storage/test_gcs.py
"""
import json
import os
import urllib.error
import urllib.parse
import urllib.request

import pytest

from local_gcs import BUCKET, LocalGcs, free_port
from relay import Proxy
from shoptoolkit.storage.location import location
from test_storage import (FAILED_LINES, a_missing_bucket_is_one_line, a_silent_server_is_one_line, failed_day_lines,
                          make_days_writes_a_folder_s_bytes, september, write_log)


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


def test_make_days_writes_the_same_bytes_to_a_bucket_as_to_a_folder(gcs, gcs_server, tmp_path, capsys):
    make_days_writes_a_folder_s_bytes(gcs, lambda root, below: names(gcs_server, root, below), tmp_path, capsys)


def test_failed_day_says_the_same_line_of_a_bucket_as_of_a_folder(gcs, tmp_path):
    assert failed_day_lines(gcs) == failed_day_lines(tmp_path / "local") == FAILED_LINES


def test_a_missing_bucket_is_one_line_naming_the_root(gcs, monkeypatch, capsys):
    a_missing_bucket_is_one_line("gs", monkeypatch, capsys)


def test_a_server_that_does_not_answer_is_one_line_naming_it(gcs, monkeypatch):
    a_silent_server_is_one_line("gs", "STORAGE_EMULATOR_HOST", free_port(), monkeypatch)  # nothing listens there


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


def test_clean_deletes_the_table_s_objects_and_leaves_the_landing_files(gcs, gcs_server, capsys):
    """make_days.py --clean on gs://: every object below lake/orders_daily/ goes (GCS keeps no prefix of its
    own once they have, so nothing is left to delete after them)."""
    from make_days import main as make_days_main
    september(gcs)
    write_log(gcs, {"_delta_log/00000000000000000000.json": "{}\n", "part-1.parquet": ""})
    assert make_days_main(["--clean", "--root", gcs]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "deleted lake/orders_daily"
    assert names(gcs_server, gcs) == [f"landing/orders/2026-09-{n:02d}.csv" for n in range(1, 31)]


@pytest.mark.parametrize("status, why", [(401, "Invalid Credentials"), (403, "does not have storage.objects.list access")])
def test_refused_credentials_are_one_line_naming_google_s_settings(gcs, monkeypatch, capsys, status, why):
    """A server that lets nobody in (a proxy answering each request as GCS answers a bad or unauthorised
    token; the local server itself checks none): failed_day.py says so in one line, exit 1, naming where
    Google's clients find credentials."""
    from failed_day import main as failed_day_main
    refusal = json.dumps({"error": {"code": status, "message": why, "errors": [{"message": why}]}})
    with Proxy(os.environ["STORAGE_EMULATOR_HOST"], refuse=(status, refusal)) as proxy:
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", proxy.url)
        monkeypatch.setenv("SHOP_ROOT", gcs)
        assert failed_day_main(["2026-09-21"]) == 1
    assert proxy.requests  # it was asked, and refused
    assert capsys.readouterr() == ("", f"error: cannot reach {gcs}: access denied: check GOOGLE_APPLICATION_CREDENTIALS "
                                       f"(or gcloud auth application-default login)\n")
