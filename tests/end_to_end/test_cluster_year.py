"""A year of days in one commit, big enough together to be checked inside Spark, on a standalone cluster of two workers (one core each) prints the
same lines and builds the same table as in local mode: the files are checked, hashed and compared
inside Spark, by the executors, and a day whose file is refused near its end is left out with the
line the Python path gives. The lines are local mode's for a backfill in one commit, word for word
(test_backfill_commits.py runs it in local mode); the table is the files' rows as plain Spark reads
them, but the refused day's.

    flock /tmp/jvm.lock timeout 1200 .venv/bin/python -m pytest -q -s tests/end_to_end/test_cluster_year.py

365 files of 2,500 orders (912,500, 35 MB: the commit's files together are over BIG_FILES, so the
executors check them; bench/bench_engine.py's year holds the 3.65 million orders of the figures); the
cluster as tests/support/standalone.py starts it.
"""
import datetime as dt
import re
import time

import pytest

from conftest import group_members
from shoptoolkit.dates import day_loaded_by, run_dates
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import root_at
from shoptoolkit.table_schema import columns_ddl
from shoptoolkit.till.in_python import read_day_file
from standalone import StandaloneCluster
from test_cluster import PLACE, TIME, run_watched

pytestmark = pytest.mark.timeout(1800)  # about 5 minutes in CI

YEAR_RUNS = ("2025-10-02", "2026-10-01")  # loads 1 October 2025 to 30 September 2026
ORDERS = 2_500
BAD_DAY = "2026-03-15"  # its last line has a negative amount
BAD_LINE = "20000000,C01,-4.00,2026-03-15T23:59:59"


def write_year(folder, bad: bool = True) -> None:
    """The year's files, ORDERS orders a day with ids growing day by day; BAD_DAY's last line refused."""
    landing = folder / "landing" / "orders"
    landing.mkdir(parents=True)
    for number, run_date in enumerate(run_dates(*YEAR_RUNS)):
        day, first = day_loaded_by(run_date), 10_000_000 + number * ORDERS
        times = (i * 86400 // ORDERS for i in range(ORDERS))
        lines = [f"{first + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},{day}T{at // 3600:02d}:{at // 60 % 60:02d}:"
                 f"{at % 60:02d}\n" for i, at in enumerate(times)]
        last = [BAD_LINE + "\n"] if bad and str(day) == BAD_DAY else []
        (landing / f"{day}.csv").write_text("order_id,customer_id,amount,ordered_at\n" + "".join(lines + last))


def refusal(folder) -> str:
    with root_at(folder):
        try:
            read_day_file(dt.date.fromisoformat(BAD_DAY))
        except ToolkitError as error:
            return str(error)
    raise AssertionError("the bad day's file passes")


DIGEST = ("count(*)", "count(DISTINCT order_date)",
          "sum(cast(xxhash64(order_id, customer_id, amount, ordered_at, order_date) AS DECIMAL(38, 0)))")


def table_digest(spark, folder) -> tuple:
    """(rows, days, a hash over every row) of the folder's orders_daily, worked out by Spark."""
    return tuple(spark.read.format("delta").load(str(folder / "lake" / "orders_daily")).selectExpr(*DIGEST).first())


def files_digest(spark, folder) -> tuple:
    """The same of the folder's files but BAD_DAY's, read by plain Spark with the table's schema."""
    from pyspark.sql import functions as F
    paths = [str(path) for path in sorted((folder / "landing" / "orders").glob("*.csv")) if BAD_DAY not in path.name]
    orders = (spark.read.schema(columns_ddl()).options(header=True, mode="FAILFAST",
                                                       timestampFormat="yyyy-MM-dd'T'HH:mm:ss").csv(paths)
              .withColumn("order_date", F.to_date(F.regexp_extract("_metadata.file_name", r"^(.{10})", 1))))
    return tuple(orders.selectExpr(*DIGEST).first())


def year_lines(refusal_line: str) -> list:
    """What backfill.py prints for the year in one commit (test_backfill_commits.py checks these lines in
    local mode), places and times left out: a line a run, BAD_DAY's its refusal, then the commit's and
    the closing line."""
    lines, bad_run = [], str(dt.date.fromisoformat(BAD_DAY) + dt.timedelta(days=1))
    for run_date in map(str, run_dates(*YEAR_RUNS)):
        day = day_loaded_by(run_date)
        lines.append(f"run {run_date} failed: {refusal_line} (left out of commit 1 of 1)" if run_date == bad_run else
                     f"run {run_date} loaded {day}: {ORDERS} rows, orders_daily has {364 * ORDERS}; ok {day}: "
                     f"{ORDERS} rows for the file's {ORDERS} orders, 0 missing (commit 1 of 1)")
    return lines + ["commit 1 of 1: 364 days in one commit, 364 of 365 runs ok",
                    f"ran 365 runs in 1 commit, 1 failed ({bad_run}); orders_daily has 364 days, {364 * ORDERS} orders"]


def test_a_year_checked_inside_spark_on_two_workers_prints_and_writes_as_in_local_mode(tmp_path, request):
    write_year(tmp_path / "cluster")
    (tmp_path / "daemons").mkdir()
    with StandaloneCluster(tmp_path / "daemons", workers=2) as cluster:
        began = time.monotonic()
        code, out, err, _, _ = run_watched(("backfill.py", *YEAR_RUNS, "--days-per-commit", "all"),
                                           tmp_path / "cluster", cluster.driver_env())
        print(f"\nthe year's backfill on two workers: {time.monotonic() - began:.1f} s, its process's start included")
        cluster.wait_for(lambda state: len(state["completedapps"]) == 1, "the backfill to end", 60)
        groups = cluster.groups()
    assert [group_members(group) for group in groups] == [[], [], []]
    executors = sorted(path.parent.parent.parent.name
                       for path in (tmp_path / "daemons").glob("work*/app-*/*/stderr"))
    assert executors == ["work", "work2"]  # an executor on each worker
    refusal_line = refusal(tmp_path / "cluster")  # the Python path's own line
    assert re.search(rf" line {ORDERS + 2}: amount .*-4\.00.* is negative$", refusal_line)
    assert (code, [PLACE.sub("", TIME.sub("", line)) for line in out.splitlines()], err) == (
        1, year_lines(refusal_line), "")
    spark = request.getfixturevalue("spark")
    table = table_digest(spark, tmp_path / "cluster")
    assert table == files_digest(spark, tmp_path / "cluster") and table[:2] == (364 * ORDERS, 364)
