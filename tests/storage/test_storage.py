"""The project root on an object store: SHOP_ROOT=s3a://BUCKET/PREFIX puts landing/ and lake/ in a bucket,
reached outside Spark through shoptoolkit/storage/, with the same bytes and the same words as below a
folder. A moto S3 server on a loopback port stands in for the store, set as AWS's own tools read it
(AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, ...). No Spark starts here.

    pytest tests/storage/test_storage.py
"""
import hashlib
import logging
import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from conftest import ROOT, SEP_15
from failed_day import failed_day_line, main as failed_day_main
from make_days import main as make_days_main, make_days
from parallel import experiment_folder
from record_logs import LOGS as RECORDED, found_in_log
from shoptoolkit.engine.pipeline_setup import pipeline_home
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.location import listed_file, location
from shoptoolkit.storage.project_paths import day_file, landing_dir, logs_dir, root_at, shown, table_path
from shoptoolkit.table.delta_log_check import delta_log_problem
from shoptoolkit.table.first_load import being_created, creating
from shoptoolkit.till.in_python import fingerprint, read_day_file
from upkeep import data_files

BUCKET = "shop"
SECRET = "not-the-real-secret-0123456789"
SEP_20 = SEP_15.replace(day=20)


@pytest.fixture(scope="module")
def s3_server():
    """An S3 server on a free loopback port, its bucket made; its URL."""
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line a request, else
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    url = "http://{}:{}".format(*server.get_host_and_port())
    client(url).create_bucket(Bucket=BUCKET)
    yield url
    server.stop()


def client(url: str):
    return boto3.client("s3", endpoint_url=url, region_name="us-east-1",
                        aws_access_key_id="testing", aws_secret_access_key=SECRET)


@pytest.fixture
def s3(s3_server, tmp_path, monkeypatch):
    """A prefix of the bucket of this test's own (s3a://shop/<test folder>), the server set in the
    environment; SHOP_ROOT is left unset."""
    for name in ("AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_server)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.chdir(tmp_path)
    return f"s3a://{BUCKET}/{tmp_path.name}"


def keys(s3_server, root: str, below: str = "") -> list:
    """The bucket's objects below root/below, as S3 itself lists them (not through the toolkit)."""
    prefix = f"{root.split('/', 3)[3]}/{below}"
    listed = client(s3_server).list_objects_v2(Bucket=BUCKET, Prefix=prefix).get("Contents", [])
    return sorted(item["Key"][len(prefix):] for item in listed)


def september(root) -> dict:
    """make_days() below root: {file name: bytes} as read back."""
    with root_at(root):
        written, orders = make_days()
        assert (len(written), orders) == (30, 130)
        return {path.name: path.read_bytes() for path in landing_dir().iterdir()}


def make_days_writes_a_folder_s_bytes(root: str, listed, tmp_path, capsys) -> None:
    """make_days below root (a bucket's prefix) writes what it writes below a folder; listed(root, below):
    the names the store itself lists below root/below."""
    local, remote = september(tmp_path / "local"), september(root)
    assert remote == local and len(local) == 30
    assert listed(root, "landing/orders/") == sorted(local)
    assert make_days_main(["--root", root]) == 0
    assert capsys.readouterr().out == "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders\n"
    assert str(day_file(SEP_15)) == f"{root}/landing/orders/2026-09-15.csv"  # what Spark is given


def test_make_days_writes_the_same_bytes_to_a_bucket_as_to_a_folder(s3, s3_server, tmp_path, capsys):
    make_days_writes_a_folder_s_bytes(s3, lambda root, below: keys(s3_server, root, below), tmp_path, capsys)


def test_a_day_file_in_a_bucket_reads_as_its_local_copy(s3, tmp_path):
    found = {}
    for root in (tmp_path / "local", s3):
        september(root)
        with root_at(root):
            path = day_file(SEP_15)
            with path.open("rb") as raw:
                first = raw.readline()
            with path.open(encoding="utf-8-sig", newline="") as text:
                lines = list(text)
            checked = read_day_file(SEP_15)
            found[str(root)] = (path.exists(), path.is_file(), path.stat().st_size, first, lines, fingerprint(path),
                                hashlib.sha256(path.read_bytes()).hexdigest(), shown(path), day_file("2026-10-15").exists(),
                                checked.sha256, checked.order_ids, checked.values, shown(checked.path))
    local, remote = found.values()
    assert remote == local
    assert local[0:4] == (True, True, 144, b"order_id,customer_id,amount,ordered_at\n")
    assert local[7] == "landing/orders/2026-09-15.csv" and local[8] is False


def failed_day_lines(root) -> list:
    """failed_day's lines for three runs below root, its September made, 2026-09-20's file gone and
    2026-09-15's spoiled."""
    september(root)
    with root_at(root):
        day_file(SEP_20).unlink()
        day_file(SEP_15).write_text("order_id,customer_id,amount,ordered_at\n7,C1,1.00,2026-09-15T25:00:00\n")
        return [failed_day_line(run) for run in ("2026-09-16", "2026-09-20", "2026-09-21")]


def test_failed_day_says_the_same_line_of_a_bucket_as_of_a_folder(s3, tmp_path):
    assert failed_day_lines(s3) == failed_day_lines(tmp_path / "local") == FAILED_LINES


FAILED_LINES = [
        "FAILED run 2026-09-16: day 2026-09-15 is not loaded and checked; bad file (landing/orders/2026-09-15.csv "
        "line 2: ordered_at '2026-09-15T25:00:00' is not a timestamp like 2026-09-15T20:30:00)",
        "FAILED run 2026-09-20: day 2026-09-19 is not loaded and checked; landing/orders/2026-09-19.csv reads fine "
        "(5 orders): the table or Spark failed, see the load_day and check_day output",
        "FAILED run 2026-09-21: day 2026-09-20 is not loaded and checked; no file landing/orders/2026-09-20.csv"]


def write_log(root, names: dict) -> None:
    """Files below the root's lake/orders_daily/: {relative name: text}."""
    with root_at(root):
        for name, text in names.items():
            (table_path() / name).write_text(text)


def test_a_glob_of_the_delta_log_finds_in_a_bucket_what_it_finds_in_a_folder(s3, tmp_path):
    names = {"_delta_log/00000000000000000000.json": '{"commitInfo": {}}\n',
             "_delta_log/00000000000000000001.json": "{not json\n",
             "_delta_log/00000000000000000001.checkpoint.parquet": "",
             "_delta_log/_last_checkpoint": "{}", "_delta_log/00000000000000000002.crc": "",
             "order_date=2026-09-15/part-0.parquet": "", "part-1.parquet": ""}
    (tmp_path / "local" / "lake" / "orders_daily" / "order_date=2026-09-15").mkdir(parents=True)
    (tmp_path / "local" / "lake" / "orders_daily" / "_delta_log").mkdir()
    found = {}
    for root in (tmp_path / "local", s3):
        write_log(root, names)
        with root_at(root):
            log = table_path() / "_delta_log"
            found[str(root)] = ([path.name for path in sorted(log.glob("*.json"))],
                                [path.name for path in log.glob("[0-9]*.checkpoint*.parquet")],
                                sorted(path.name for path in log.iterdir()), delta_log_problem(log), data_files())
            (log / "00000000000000000001.checkpoint.parquet").unlink()
            found[str(root)] += (delta_log_problem(log), log.is_dir(), (log / "none.json").exists())
    local, remote = found.values()
    assert remote == local
    assert local[0:2] == (["00000000000000000000.json", "00000000000000000001.json"],
                          ["00000000000000000001.checkpoint.parquet"])
    assert local[3:] == ("", 2, "commit lake/orders_daily/_delta_log/00000000000000000001.json line 1 is not JSON "
                                "(damaged); restore it from a backup", True, False)


@pytest.mark.parametrize("case", RECORDED)
def test_the_record_proves_a_day_in_a_bucket_as_it_does_in_a_folder(case, s3):
    commits, expected = RECORDED[case]
    assert found_in_log(s3, commits) == expected


def test_clean_deletes_the_table_s_objects_and_logs_stay_in_the_current_folder(s3, s3_server, tmp_path, capsys):
    september(s3)
    write_log(s3, {"_delta_log/00000000000000000000.json": "{}\n", "part-1.parquet": ""})
    assert make_days_main(["--clean", "--root", s3]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "deleted lake/orders_daily"
    assert [key for key in keys(s3_server, s3) if not key.endswith("/")] == [  # a store may keep a folder marker
        f"landing/orders/2026-09-{n:02d}.csv" for n in range(1, 31)]
    with root_at(s3):
        assert logs_dir() == tmp_path / "logs"
        assert not being_created()
        with creating():  # no lock file: a store has no flock
            pass
        with pytest.raises(TypeError):  # no __fspath__: a builtin open() of a store's path fails loudly
            open(day_file(SEP_15))
    assert list(tmp_path.iterdir()) == []


def test_parallel_s_experiment_in_a_bucket_holds_a_copy_of_the_landing_files(s3, s3_server):
    landing = september(s3)
    with root_at(s3):
        with experiment_folder("partitioned"):
            (table_path() / "part-0.parquet").write_bytes(b"")  # a try's table
        with experiment_folder("partitioned") as folder:  # the next try empties the folder first
            assert {path.name: path.read_bytes() for path in landing_dir().iterdir()} == landing
            assert (str(folder), shown(table_path())) == (f"{s3}/experiments/partitioned", "lake/orders_daily")
    assert keys(s3_server, s3, "experiments/partitioned/") == [f"landing/orders/{name}" for name in sorted(landing)]


def test_the_pipeline_refuses_a_bucket_root_in_one_line(s3):
    with root_at(s3), pytest.raises(ToolkitError) as refused:
        pipeline_home()
    assert str(refused.value) == (f"the pipeline runs below a local folder only, not {s3}: its Derby catalog, "
                                  f"Spark settings and run lock are files in lake/_pipeline/")


def test_a_file_spark_lists_is_found_by_its_uri(s3):
    assert listed_file("file:/data/shop/lake/orders_daily/order_date=2026-09-15/a%20b.parquet") == Path(
        "/data/shop/lake/orders_daily/order_date=2026-09-15/a b.parquet")
    assert str(listed_file(f"{s3}/lake/orders_daily/a%20b.parquet")) == f"{s3}/lake/orders_daily/a b.parquet"
    assert location(f"{s3}/lake") / "orders_daily" == location(f"{s3}/lake/orders_daily/")


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def a_missing_bucket_is_one_line(scheme: str, monkeypatch, capsys) -> None:
    """failed_day.py and make_days.py --root of scheme://nobucket/course say so in one line each."""
    monkeypatch.setenv("SHOP_ROOT", f"{scheme}://nobucket/course")
    assert failed_day_main(["2026-09-21"]) == 1
    assert capsys.readouterr().err == f"error: cannot reach {scheme}://nobucket/course: the bucket nobucket does not exist\n"
    with pytest.raises(SystemExit) as usage:
        make_days_main(["--root", f"{scheme}://nobucket/course"])
    assert usage.value.code == 2 and capsys.readouterr().err.splitlines()[-1].endswith(
        f" error: argument --root: cannot reach {scheme}://nobucket/course: the bucket nobucket does not exist")


def test_a_missing_bucket_is_one_line_naming_the_root(s3, monkeypatch, capsys):
    a_missing_bucket_is_one_line("s3a", monkeypatch, capsys)


def a_silent_server_is_one_line(scheme: str, variable: str, port: int, monkeypatch) -> None:
    """A day file's look below scheme://shop/course, the server named in variable on a port nothing answers,
    says so in one line naming the server and the variable."""
    monkeypatch.setenv(variable, f"http://127.0.0.1:{port}")
    monkeypatch.setenv("SHOP_ROOT", f"{scheme}://shop/course")
    with pytest.raises(ToolkitError) as refused:
        day_file(SEP_15).exists()
    assert str(refused.value) == (f"cannot reach {scheme}://shop/course: no answer from http://127.0.0.1:{port}/ "
                                  f"({variable})")


def test_a_server_that_does_not_answer_is_one_line_naming_it(s3, monkeypatch):
    port = closed_port()
    a_silent_server_is_one_line("s3a", "AWS_ENDPOINT_URL", port, monkeypatch)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", f"http://user:{SECRET}@127.0.0.1:{port}/")  # wins, and is not shown whole
    with pytest.raises(ToolkitError) as refused:
        location("s3a://shop/course")
    assert str(refused.value) == (f"cannot reach s3a://shop/course: no answer from http://127.0.0.1:{port}/ "
                                  f"(AWS_ENDPOINT_URL_S3)")


def moto_auth(url: str, after: str) -> None:
    """Make moto check credentials after this many requests ("0": now; "inf": never, its default)."""
    request = urllib.request.Request(f"{url}/moto-api/reset-auth", data=after.encode(), method="POST",
                                     headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(request).read()


def test_credentials_the_store_refuses_are_one_line_without_the_secret(s3, s3_server, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIANOTKNOWNHERE0000")  # a key moto's IAM does not know
    moto_auth(s3_server, "0")
    try:
        with pytest.raises(ToolkitError) as refused:
            location(s3)
    finally:
        moto_auth(s3_server, "inf")
    assert str(refused.value) == (f"cannot reach {s3}: access denied: check AWS_ACCESS_KEY_ID and "
                                  f"AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)")


def test_a_local_root_loads_no_pyarrow(tmp_path):
    code = ("import sys; from shoptoolkit.storage.project_paths import day_file; import make_days, failed_day; "
            "make_days.make_days(); print(failed_day.failed_day_line('2026-09-16')); "
            "print(day_file('2026-09-15').stat().st_size, sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pyarrow', 'boto3', 'moto'}))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.splitlines() == [
        "FAILED run 2026-09-16: day 2026-09-15 is not loaded and checked; landing/orders/2026-09-15.csv reads fine "
        "(3 orders): the table or Spark failed, see the load_day and check_day output", "144 []"]
    assert (tmp_path / "landing" / "orders" / "2026-09-15.csv").stat().st_size == 144


def test_a_store_the_toolkit_cannot_probe_refuses_writers_at_once_in_one_line(monkeypatch):
    """A store with no check that it refuses a second commit of one version (storage/parts.py) is not
    passed silently: parallel.py and backfill.py --parallel say so before anything is written. Both stores
    the toolkit takes have a probe now; a store entered without one stands for the next."""
    from shoptoolkit.storage.commit_safety import refuse_writers_on
    from shoptoolkit.storage.parts import STORES, StoreParts, store_parts
    monkeypatch.setitem(STORES, "next", StoreParts("next", "the next store"))
    with pytest.raises(ToolkitError) as refused:
        refuse_writers_on("next://shop/course/lake/orders_daily", spark=None)  # never asked: the store has no probe
    assert str(refused.value) == ("next://shop: writers at once are not supported on the next store yet (no "
                                  "check that it refuses a second commit of one version): run one writer at a time there")
    assert store_parts(ROOT) is None
    assert [scheme for scheme, parts in STORES.items() if parts.refuses_second_put is None] == ["abfss", "next"]


ABFSS = "abfss://shop@account.dfs.core.windows.net/course"
ABFSS_REFUSED = "error: abfss:// is not supported yet: it cannot be tested without Azure"
EVERY_SCRIPT = ["make_days.py", "load_day.py 2026-09-16", "check_day.py 2026-09-16", "check_month.py 2026-09",
                "backfill.py 2026-09-02 2026-09-03", "parallel.py 2026-09-02 2026-09-03", "failed_day.py 2026-09-16",
                "history.py", "restore_day.py 2026-09-15 --version 1", "partition_table.py", "upkeep.py",
                "spark_server.py start", "run_pipeline.py", "check_pipeline.py 2026-09"]


@pytest.mark.parametrize("script", EVERY_SCRIPT)
def test_an_abfss_root_is_refused_in_one_line_by_every_script(script, tmp_path):
    """Azure's abfss:// cannot be tested here (no local server speaks ABFS), so it is refused as a root
    (storage/parts.py) before anything starts: one line, exit 2, nothing written, no Java. Before, with
    no Azure login, pyarrow's Azure client aborted the process (exit 134)."""
    done = subprocess.run([sys.executable, str(ROOT / script.split()[0]), *script.split()[1:]], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=script_env(SHOP_ROOT=ABFSS))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", ABFSS_REFUSED + "\n")
    assert list(tmp_path.iterdir()) == []


def test_an_abfss_root_option_is_a_usage_error(tmp_path):
    done = subprocess.run([sys.executable, str(ROOT / "load_day.py"), "2026-09-16", "--root", ABFSS], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, env=script_env())
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == f"load_day.py: {ABFSS_REFUSED.replace('error: ', 'error: argument --root: ')}"
    assert list(tmp_path.iterdir()) == []


def script_env(**settings) -> dict:
    """The environment a user's terminal gives a script: this one's, without a root of the tests'."""
    env = {name: value for name, value in os.environ.items() if name != "SHOP_ROOT"}
    return {**env, "PYTHONPATH": str(ROOT), **settings}
