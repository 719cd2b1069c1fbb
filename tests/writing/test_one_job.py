"""A big day loaded in one job (shoptoolkit/writing/held_write.py): the job's own tasks check the lines, its facts
go into the lineage, and a file it refuses (a bad last line, a last line repeating the first one's id)
leaves nothing in any version of the table, in its change data feed, in its history or in its folder."""
import datetime as dt
import shutil

import pytest

from delta_session import history_frame, orders_table, table_at_version, table_sql_name, table_version
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import day_file, table_path
from test_big_day import ROWS, write_big_day

DAY, RUN = dt.date(2026, 9, 15), "2026-09-16"
FILE = "landing/orders/2026-09-15.csv"


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    """The million-order file of test_big_day, written once for this module's tests to copy."""
    folder = tmp_path_factory.mktemp("big")
    (folder / "landing" / "orders").mkdir(parents=True)
    from shoptoolkit.storage.project_paths import root_at
    with root_at(folder):
        write_big_day(DAY)
        return day_file(DAY)


@pytest.fixture
def table(spark, days, big_file):
    """September's 1st loaded into a table, then its change data feed turned on (version 1); the big file in
    place of the 15th's."""
    from load_day import load_day
    load_day(spark, "2026-09-02")
    spark.sql(f"ALTER TABLE {table_sql_name()} SET TBLPROPERTIES (delta.enableChangeDataFeed = true)")
    shutil.copyfile(big_file, day_file(DAY))
    return days


def data_files() -> set:
    return {path.name for path in table_path().rglob("*.parquet")}


def named_files() -> set:
    """The data files any commit of the log adds."""
    import json
    return {json.loads(line)["add"]["path"].rsplit("/", 1)[-1] for commit in (table_path() / "_delta_log").glob("*.json")
            for line in commit.read_text().splitlines() if '"add"' in line}


def test_a_good_big_day_loads_in_one_job_with_its_facts(spark, table, monkeypatch):
    import load_day
    from check_day import check_day
    from shoptoolkit.table.load_lineage import commit_loads
    from shoptoolkit.truth.spark_compare import table_digest
    monkeypatch.setattr(load_day, "checked_day", None)  # the two-pass load's check is not called
    assert load_day.load_day(spark, RUN) == f"run {RUN} loaded {DAY}: {ROWS} rows, orders_daily has {ROWS + 4}"
    entry, = commit_loads(history_frame(spark, 1).first().userMetadata)
    assert (entry["rows_written"], entry["lowest"], entry["highest"]) == (ROWS, 10_000_000, 10_000_000 + ROWS - 1)
    assert entry["rows_digest"] == table_digest(spark, DAY)
    ok = (True, f"ok {DAY}: {ROWS} rows for the file's {ROWS} orders, 0 missing")
    assert check_day(spark, RUN) == ok and check_day(spark, RUN, deep=True) == ok


# A repeated id is found after the job, in the files it wrote, which are then deleted; a bad line fails the
# job, and the files its finished tasks wrote stay in the folder, named by no commit, until VACUUM.
@pytest.mark.parametrize("last_line, refusal, deleted", [
    ("10000000,C01,4.50,2026-09-15T23:59:59",
     f"{FILE} line {ROWS + 2}: order_id 10000000 appears twice in the file", True),
    ("10999999x,C01,4.5O,2026-09-15T23:59:59", f"{FILE} line {ROWS + 2}: amount '4.5O' is not a number like 19.99",
     False),
], ids=["repeated id", "bad amount"])
def test_a_refused_big_file_is_in_no_version(spark, table, last_line, refusal, deleted):
    from load_day import load_day
    with open(day_file(DAY), "a") as handle:
        handle.write(last_line.replace("10999999x", "11000000") + "\n")
    before, files = table_version(spark), data_files()
    with pytest.raises(ToolkitError) as refused:
        load_day(spark, RUN)
    assert str(refused.value) == refusal
    assert table_version(spark) == before and not (data_files() - files) & named_files()
    assert (data_files() == files) == deleted
    for version in range(before + 1):
        assert table_at_version(spark, version).where(f"order_date = DATE'{DAY}'").count() == 0
    changes = (spark.read.format("delta").option("readChangeFeed", "true").option("startingVersion", 1)
               .load(str(table_path())))
    assert changes.where(f"order_date = DATE'{DAY}'").count() == 0
    assert not [row for row in history_frame(spark).collect() if str(DAY) in (row.userMetadata or "")]
    assert orders_table(spark).count() == 4
