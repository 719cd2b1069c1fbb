"""The course on a bucket, S3's and Google Cloud Storage's alike: the scripts print what they print on a
folder, with landing/ and lake/ below s3a://shop/<test>/ on moto's S3 server or gs://shop/<test>/ on
fake-gcs-server (make test-setup builds it), each on a loopback port. Delta's commits go through the
toolkit's conditional-put log store on S3 and Delta's GCSLogStore on GCS, so two writers held inside their
transactions and let go together both land, one after a lost conflict, as on a folder; a store that does
not refuse a second create of a commit is refused for writers at once in one line.

    pytest tests/end_to_end/test_bucket_lake.py      # each store's connector is fetched on its first start

The held writers, the refused store's run and the load whose server stops are each a process of their
own; the scripts whose lines are all a test reads run one after another in one other process a store
(tests/support/script_server.py), its Spark started once (the stopped server's check and rerun, once it
is back, in one of their own, with that test's settings). (`make run-s3` and `make run-gcs` run September
as processes of their own, backfill.py's 30 runs printing the folder's lines: tests/course/test_make.py; the
September test here puts the folder's table on the bucket and goes on from there.) Also: the check from the load's record reads the log
and the day's file and no data file (a proxy notes every request); restore_day.py, history.py and upkeep.py
print the folder's lines; a big day is checked inside Spark; a load whose server stops mid-write says so in
one line and its rerun, the server back, loads the day; on S3, the warm server (Spark Connect) started on
the bucket serves its clients' loads and checks.
"""
import datetime as dt
import io
import os
import re
import subprocess
import sys
import urllib.parse
from collections import Counter
from contextlib import contextmanager, redirect_stdout
from dataclasses import dataclass

import pytest

from conftest import LATE_ORDER, ROOT, SEP_15, root_at
from holding import RoundWriter, release, start_round, wait_held
from local_gcs import LocalGcs
from local_s3 import BUCKET, LocalS3
from relay import Proxy
from script_server import ScriptServer
from suite_jit import server_env

pytestmark = pytest.mark.timeout(1200)

TIME = re.compile(r" \(\d+\.\d+ s\)$")
CLOCK = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?")  # when a commit was made, as upkeep.py shows it
MONTH_OK = "ok 2026-09: all 30 days match their files, 130 orders"


@dataclass(frozen=True)
class Store:
    """What differs between the two stores in these tests."""
    scheme: str
    server: type
    endpoint: str  # the variable the scripts find the server in
    unsafe: dict  # the proxy's settings that take the create-if-absent condition off every request
    unsafe_words: str  # how the refusal names what the store does not do
    few_retries: str  # spark-defaults.conf's lines that cut the connector's retries short
    refusal: str  # the body of the store's answer to credentials it refuses (403)
    credentials: str  # where the refusal's line sends the user

    def started_again(self, port: int, folder):
        """The server on port again, with what it held (moto keeps it in this process, fake-gcs-server in folder)."""
        return LocalS3(port) if self.server is LocalS3 else LocalGcs(port, folder=folder)

    def keys(self, target: str) -> list:
        """The object keys a request names, as /BUCKET/KEY: its path's (GCS's JSON API: /b/BUCKET/o/NAME) and a
        listing's prefix or an upload's name."""
        path, _, query = target.partition("?")
        path = re.sub(r"^(/download|/upload)?/storage/v1/b/([^/]+)/o/?", r"/\2/", path)
        named = urllib.parse.parse_qs(query)
        return [path] + [f"/{BUCKET}/{value}" for key in ("prefix", "name") for value in named.get(key, [])]

    def reads(self, method: str, target: str) -> bool:
        """Whether a request reads an object's bytes (GCS's metadata is a GET of its own, without alt=media)."""
        return method == "GET" and (self.server is LocalS3 or "alt=media" in target)


STORES = {
    "s3": Store("s3a", LocalS3, "AWS_ENDPOINT_URL", {"headers": ("if-none-match", "expect")},
                "does not refuse a second put of one key (If-None-Match)",
                "spark.hadoop.fs.s3a.retry.limit 1\nspark.hadoop.fs.s3a.attempts.maximum 1\n",
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied"
                "</Message></Error>", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE)"),
    "gcs": Store("gs", LocalGcs, "STORAGE_EMULATOR_HOST", {"query": ("ifGenerationMatch",)},
                 "does not refuse a second create of one object (ifGenerationMatch=0)",
                 "spark.hadoop.fs.gs.http.max.retry 1\n",
                 '{"error": {"code": 403, "message": "Permission denied", "errors": [{"reason": "forbidden"}]}}',
                 "GOOGLE_APPLICATION_CREDENTIALS (or gcloud auth application-default login)"),
}


@pytest.fixture(scope="module", params=list(STORES))
def store(request):
    with STORES[request.param].server() as server:
        yield STORES[request.param], server


@pytest.fixture(scope="module")
def served(store):
    with ScriptServer(store[1].env("served")) as server:
        yield server


@pytest.fixture
def on_bucket(store, tmp_path):
    """The environment of a script run below the bucket's prefix <this test's folder name>, as a user sets it."""
    return store[1].env(tmp_path.name)


def run(env, cwd, *args) -> tuple:
    done = subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:]], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, [TIME.sub("", line) for line in done.stdout.splitlines()], done.stderr


def serve(served, env, cwd, *args) -> tuple:
    """run()'s answer from the script server, below env's SHOP_ROOT."""
    code, lines, err = served.run(list(args), cwd, env["SHOP_ROOT"])
    return code, [TIME.sub("", line) for line in lines], err


def test_september_on_a_bucket_prints_what_a_folder_prints(store, on_bucket, tmp_path, september, september_template,
                                                          spark, served):
    from check_day import check_day
    from conftest import append_line
    from load_day import load_day
    kind, _ = store
    assert serve(served, on_bucket, tmp_path, "make_days.py") == (
        0, ["wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders"], "")
    # backfill.py's 30 runs on a bucket print the folder's lines in `make run-s3` and `make run-gcs`
    # (tests/course/test_make.py); here the folder's September table is put on the bucket as it is.
    put_table(september_template / "lake" / "orders_daily", on_bucket, kind)
    code, month, err = serve(served, on_bucket, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
    assert (code, month[0], month[-1], err) == (0, "September 2026: 30 ok", MONTH_OK, "")

    append_line(SEP_15, LATE_ORDER)  # the same late order on the folder (september's copy) and on the bucket
    changed = check_day(spark, "2026-09-16")
    late_order(on_bucket, kind)
    assert serve(served, on_bucket, tmp_path, "check_day.py", "2026-09-16")[:2] == (1, [changed[1]])
    assert serve(served, on_bucket, tmp_path, "load_day.py", "2026-09-16") == (
        0, ["run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"], "")
    with Proxy(on_bucket[kind.endpoint]) as proxy:  # the check from the load's record, every request seen
        assert run({**on_bucket, kind.endpoint: proxy.url}, tmp_path, "check_day.py", "2026-09-16") == (
            0, ["ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing"], "")
    table, day_key = f"/{BUCKET}/{tmp_path.name}/lake/orders_daily/", f"/{BUCKET}/{tmp_path.name}/landing/orders/{SEP_15}.csv"
    keyed = [(method, target, kind.keys(target)) for method, target in proxy.requests]
    assert any("/_delta_log/" in key for _, _, keys in keyed for key in keys), proxy.requests
    assert any(day_key in keys for _, _, keys in keyed), proxy.requests
    outside = [target for _, target, keys in keyed
               if any(key.startswith(table.rstrip("/")) and not key.startswith(table + "_delta_log/") for key in keys)]
    assert outside == []  # no data file, no listing of the table's folder
    reads = Counter(keys[0] for method, target, keys in keyed if kind.reads(method, target))
    assert reads[day_key] == 1  # the route reads the day's file once, and each commit of the log once
    assert [key for key, count in reads.items() if "/_delta_log/" in key and key.endswith(".json") and count > 1] == []

    # The rest of the course on both, the folder's in this session: a restore, the history, upkeep's VACUUM.
    load_day(spark, "2026-09-16")  # the folder's table at version 30 too
    for command in (["restore_day.py", "2026-09-16", "--version", "29"], ["history.py", "--limit", "3"],
                    ["upkeep.py", "--today", "2026-10-02"]):
        on_folder = in_session(command)
        assert on_folder[0] == 0, on_folder
        assert masked(serve(served, on_bucket, tmp_path, *command)) == (*on_folder, ""), command


def put_table(folder, env, kind: Store) -> None:
    """The table in folder, its log and data files byte for byte, below the bucket's root that env names:
    the table a backfill there writes (its commits record each day's file relative to the root). The
    commits go last, in order, so that no reader meets a commit whose files are not there yet."""
    from shoptoolkit.storage.project_paths import table_path
    files = sorted((path for path in folder.rglob("*") if path.is_file() and not path.name.startswith(".")),
                   key=lambda path: ("_delta_log" in path.parts, path.as_posix()))
    with environment(env, kind), root_at(env["SHOP_ROOT"]):
        for path in files:
            (table_path() / path.relative_to(folder).as_posix()).write_bytes(path.read_bytes())


def late_order(env, kind: Store) -> None:
    """LATE_ORDER added to the 15th's file below the bucket's root that env names: an object has no append,
    so the whole file is written again, as a till would (conftest's append_line on a folder)."""
    from shoptoolkit.storage.project_paths import day_file
    with environment(env, kind), root_at(env["SHOP_ROOT"]):
        late = day_file(SEP_15)
        late.write_text(late.read_text() + LATE_ORDER + "\n")


def in_session(command: list) -> tuple:
    """(exit code, lines) of a script's main run in this session on the current folder, times masked."""
    import runpy
    main = runpy.run_path(str(ROOT / command[0]))["main"]
    with redirect_stdout(io.StringIO()) as printed:
        code = main(command[1:])
    return masked((code, printed.getvalue().splitlines(), ""))[:2]


def masked(result: tuple) -> tuple:
    """A run's (code, lines, stderr) with its clock times (not its dates of data) and seconds left out."""
    code, lines, err = result
    return code, [CLOCK.sub("HH:MM", TIME.sub("", line)) for line in lines], err


@contextmanager
def environment(env, kind: Store):
    """This process's settings of the store's server and credentials as env has them, for a while."""
    kept = {key: os.environ.get(key) for key in env if key.startswith("AWS_") or key == kind.endpoint}
    os.environ.update({key: env[key] for key in kept})
    try:
        yield
    finally:
        for key, value in kept.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def test_two_writers_held_together_on_a_bucket_both_land(on_bucket, tmp_path, served):
    assert serve(served, on_bucket, tmp_path, "make_days.py")[0] == 0
    assert serve(served, on_bucket, tmp_path, "load_day.py", "2026-09-02")[0] == 0  # the table exists
    hold = tmp_path / "hold"
    hold.mkdir()
    writers = [subprocess.Popen([sys.executable, str(ROOT / "tests" / "support" / "holding.py"), str(hold), "load_day.py",
                                 run_date], cwd=tmp_path, env=on_bucket, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for run_date in ("2026-09-16", "2026-09-21")]
    try:
        wait_held(hold, 2, lambda: [w.communicate() for w in writers if w.poll() is not None])
        release(hold)
        ended = [(w.wait(timeout=600), w.communicate()) for w in writers]
    finally:
        for writer in writers:
            if writer.poll() is None:
                writer.kill()
    lines = sorted((out.splitlines() for _, (out, _) in ended), key=len)  # the winner's line, then the loser's two
    assert [code for code, _ in ended] == [0, 0], ended
    assert [len(each) for each in lines] == [1, 2], lines  # one lost the race for the version, retried, landed
    assert re.fullmatch(r"run \S+ lost a write conflict \(DELTA_CONCURRENT_APPEND\.WITHOUT_HINT\); "
                        r"attempt 2 of 8 in \d+\.\d s", lines[1][0]), lines
    code, month, _ = serve(served, on_bucket, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
    assert month[0] == "September 2026: 3 ok, 27 missing"
    # This store refuses a second create of a commit, so runs at once go ahead (the probe: commit_safety.py,
    # made once a process: this is the script server's first run at once).
    code, lines, err = serve(served, on_bucket, tmp_path, "backfill.py", "2026-09-03", "2026-09-04", "--parallel", "2")
    assert (code, err) == (0, "") and re.fullmatch(r"ran 2 runs, 0 failed; orders_daily has 5 days, 19 orders",
                                                   lines[-1]), lines


@pytest.mark.parametrize("store", ["s3"], indirect=True)  # the log store's conflicts are Delta's on both
def test_writers_held_together_across_a_new_column_on_a_bucket_land_each_with_its_columns(on_bucket, tmp_path,
                                                                                         served):
    """docs/new_columns.md's writers at once, on S3: one process makes a held load a round
    (SHOP_ON_NEW_COLUMN=add) while the script server's load commits. Round 1 holds the load that adds
    channel; the other commits first, the adder retries and adds it. Round 2 holds a load without the new
    columns while another adds discount: it loses to the new schema (DELTA_METADATA_CHANGED) and retries."""
    from shoptoolkit.storage.project_paths import day_file
    assert serve(served, on_bucket, tmp_path, "make_days.py")[0] == 0
    assert serve(served, on_bucket, tmp_path, "load_day.py", "2026-09-02")[0] == 0  # the table exists
    days = {day: dt.date(2026, 9, day) for day in (16, 17, 20, 22)}
    with environment(on_bucket, STORES["s3"]), root_at(on_bucket["SHOP_ROOT"]):
        for day, name in ((20, "channel"), (22, "discount")):
            lines = day_file(days[day]).read_text().splitlines()
            day_file(days[day]).write_text("".join(f"{line},{more}\n" for line, more in
                                                   zip(lines, [name, *("web" if day == 20 else "1.50" for _ in lines)])))
        counts = {day: len(day_file(on).read_text().splitlines()) - 1 for day, on in days.items()}
    rounds = [(tmp_path / "hold1", "2026-09-21", ["load_day.py", "2026-09-17"]),
              (tmp_path / "hold2", "2026-09-18", ["load_day.py", "2026-09-23", "--on-new-column", "add"])]
    writer = RoundWriter([(hold, run_date) for hold, run_date, _ in rounds], tmp_path,
                         {**on_bucket, "SHOP_ON_NEW_COLUMN": "add"})
    try:
        for (hold, run_date, other), conflict in zip(rounds, ("DELTA_CONCURRENT_APPEND.WITHOUT_HINT",
                                                              "DELTA_METADATA_CHANGED")):
            start_round(hold, [writer])
            code, lines, err = serve(served, on_bucket, tmp_path, *other)
            assert (code, err) == (0, ""), lines
            release(hold)
            code, lines = writer.round_result()
            assert code == 0 and len(lines) == 2 and re.fullmatch(
                rf"run {run_date} lost a write conflict \({conflict}\); attempt 2 of 8 in \d+\.\d s", lines[0]), lines
        assert (writer.process.wait(timeout=60), writer.process.stderr.read()) == (0, "")
    finally:
        if writer.process.poll() is None:
            writer.process.kill()
    absent = {16: "channel, discount", 17: "channel, discount", 20: "discount", 22: "channel"}
    for day, on in days.items():
        assert serve(served, on_bucket, tmp_path, "check_day.py", str(on + dt.timedelta(days=1))) == (
            0, [f"ok {on}: {counts[day]} rows for the file's {counts[day]} orders, 0 missing; no {absent[day]} in "
                f"the file (null in the table)"], ""), day
    code, month, _ = serve(served, on_bucket, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
    assert (code, month[0]) == (1, "September 2026: 5 ok, 25 missing")  # the days not loaded


def test_writers_at_once_are_refused_on_a_store_that_does_not_refuse_a_second_create(store, on_bucket, tmp_path):
    kind, _ = store
    with Proxy(on_bucket[kind.endpoint], **kind.unsafe) as proxy:
        env = {**on_bucket, kind.endpoint: proxy.url}
        assert run(env, tmp_path, "make_days.py")[0] == 0
        code, lines, err = run(env, tmp_path, "parallel.py", "2026-09-02", "2026-09-03")
    assert (code, lines, err) == (1, [], f"error: {kind.scheme}://{BUCKET} {kind.unsafe_words}, so two writers at "
                                         f"once could both commit one version of {on_bucket['SHOP_ROOT']}/lake/"
                                         f"orders_daily, the second replacing the first: run one writer at a time "
                                         f"there (no --parallel, no parallel.py)\n")


def test_a_load_whose_server_stops_fails_in_one_line_and_its_rerun_loads_the_day(store, tmp_path, september_template):
    """The server goes away while a load's rows are held inside its write (tests/support/holding.py), then
    comes back on its port with what it held: the load of the 15th, its late order new, said so in one line
    and committed nothing (the 15th is still `changed`); its rerun loads the day. The table is September's,
    put on the bucket as the folder's test run made it. The connector's retries are cut short through
    spark-defaults.conf, as a user passes any setting of it."""
    from shoptoolkit.engine.connect_server import free_port
    kind, _ = store
    conf, hold, objects, port = tmp_path / "conf", tmp_path / "hold", tmp_path / "objects", free_port()
    for folder in (conf, hold, objects):
        folder.mkdir()
    (conf / "spark-defaults.conf").write_text(kind.few_retries)
    with kind.started_again(port, objects) as server:
        env = {**server.env(tmp_path.name), "SPARK_CONF_DIR": str(conf)}
        assert run(env, tmp_path, "make_days.py")[0] == 0
        put_table(september_template / "lake" / "orders_daily", env, kind)
        late_order(env, kind)
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
    assert (writer.returncode, out, err) == (
        1, "", f"error: cannot reach {kind.scheme}://{BUCKET}/{tmp_path.name}: no answer from "
               f"http://127.0.0.1:{port}/ ({kind.endpoint})\n")
    with kind.started_again(port, objects), ScriptServer(env) as again:  # one JVM for the check and the rerun
        code, month, _ = serve(again, env, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
        assert (code, month[0]) == (1, "September 2026: 29 ok, 1 changed")  # nothing of the 15th landed
        assert serve(again, env, tmp_path, "load_day.py", "2026-09-16") == (
            0, ["run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"], "")


def test_credentials_refused_inside_spark_are_one_line_and_nothing_lands(store, on_bucket, tmp_path, served):
    """The store lets the toolkit's Python side in and refuses its JVM (a proxy answers the connector's
    requests, known by their User-Agent, as the cloud answers credentials without the right): the load's
    write fails inside Spark, and says so as the Python side would, naming the credentials; nothing lands."""
    kind, _ = store
    assert serve(served, on_bucket, tmp_path, "make_days.py")[0] == 0
    assert serve(served, on_bucket, tmp_path, "load_day.py", "2026-09-02")[0] == 0
    with Proxy(on_bucket[kind.endpoint], refuse=(403, kind.refusal), agents=("java", "hadoop")) as proxy:
        refused = run({**on_bucket, kind.endpoint: proxy.url}, tmp_path, "load_day.py", "2026-09-16")
    assert refused == (1, [], f"error: cannot reach {on_bucket['SHOP_ROOT']}: access denied: check {kind.credentials}\n")
    assert any(method == "GET" for method, _ in proxy.requests)
    code, month, _ = serve(served, on_bucket, tmp_path, "check_month.py", "2026-09", "--today", "2026-10-01")
    assert (code, month[0]) == (1, "September 2026: 1 ok, 29 missing")


def test_a_big_day_on_a_bucket_is_checked_inside_spark_and_loads_as_on_a_folder(store, on_bucket, tmp_path, served):
    """A file over BIG_FILES: load_day.py checks it inside Spark (till/in_spark.py), reading it
    from the bucket, and prints the folder's line; the check from the load's record then proves it."""
    from shoptoolkit.storage.project_paths import BIG_FILES, day_file
    orders = 180_000  # 7 MB
    lines = [f"{10_000_000 + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},{SEP_15}T{i * 86400 // orders // 3600:02d}:"
             f"{i * 86400 // orders // 60 % 60:02d}:{i * 86400 // orders % 60:02d}\n" for i in range(orders)]
    with environment(on_bucket, store[0]), root_at(on_bucket["SHOP_ROOT"]):
        day_file(SEP_15).write_text("order_id,customer_id,amount,ordered_at\n" + "".join(lines))
        assert day_file(SEP_15).stat().st_size > BIG_FILES
    assert serve(served, on_bucket, tmp_path, "load_day.py", "2026-09-16") == (
        0, [f"run 2026-09-16 loaded 2026-09-15: {orders} rows, orders_daily has {orders}"], "")
    assert serve(served, on_bucket, tmp_path, "check_day.py", "2026-09-16") == (
        0, [f"ok 2026-09-15: {orders} rows for the file's {orders} orders, 0 missing"], "")


@pytest.mark.parametrize("store", ["s3"], indirect=True)  # the server's start on a bucket is parts.py's for both
def test_the_warm_server_on_a_bucket_loads_and_checks_and_refuses_writers_at_once_in_one_line(on_bucket, tmp_path):
    """spark_server.py started with the bucket's root has the store's connector and log store; its clients
    (SPARK_REMOTE, no JVM) reach the day files through the storage layer and print the folder's lines.
    Writers at once need the store's probe, made through a JVM: refused in one line, nothing written."""
    assert run(on_bucket, tmp_path, "make_days.py")[0] == 0
    started = subprocess.run([sys.executable, str(ROOT / "spark_server.py"), "start"], cwd=tmp_path,
                             env=server_env(on_bucket), capture_output=True, text=True, timeout=600)
    try:
        assert started.returncode == 0, started.stderr
        client = {**on_bucket, "SPARK_REMOTE": re.fullmatch(r"export SPARK_REMOTE='(.+)'\n", started.stdout)[1]}
        assert run(client, tmp_path, "load_day.py", "2026-09-02") == (
            0, ["run 2026-09-02 loaded 2026-09-01: 4 rows, orders_daily has 4"], "")
        assert run(client, tmp_path, "check_day.py", "2026-09-02", "--deep") == (
            0, ["ok 2026-09-01: 4 rows for the file's 4 orders, 0 missing"], "")
        assert run(client, tmp_path, "backfill.py", "2026-09-03", "2026-09-04", "--parallel", "2") == (
            1, [], "error: writers at once on s3a:// need a classic Spark session: the store is probed through its "
                   "JVM (a Spark Connect client has none)\n")
        code, lines, _ = run(client, tmp_path, "history.py")
        assert (code, [line.split(" | ")[:2] for line in lines]) == (0, [["version 0", "WRITE"]])
    finally:
        stopped = subprocess.run([sys.executable, str(ROOT / "spark_server.py"), "stop"], cwd=tmp_path, env=on_bucket,
                                 capture_output=True, text=True, timeout=120)
    assert stopped.returncode == 0, stopped.stderr
