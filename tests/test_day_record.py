"""check_day answers from the load's own record in the Delta log (shoptoolkit/truth/day_record.py) while nothing
else touched the day, and by comparing its rows with the file as soon as anything did: here a plain Spark session writes the
table as any other Delta client would, and each of its writes is caught. Then the same rules on logs
written here by hand (no Spark): what proves a day and what does not, one case each."""
import datetime as dt
import hashlib
import json
import os

import pytest

from conftest import SEP_15, run_script
from check_day import check_day
from check_month import month_states
from history import table_history
from restore_day import restore_days
from shoptoolkit.storage.project_paths import day_file, root_at, table_path
from shoptoolkit.truth.day_record import recorded_checks

OK_15 = (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
SEP_14 = SEP_15.replace(day=14)


def table_sql(spark, statement: str) -> None:
    """A write of another Delta client: plain Spark SQL on the table's path, none of the toolkit's code."""
    spark.sql(statement.replace("{table}", f"delta.`{table_path()}`"))


def test_a_loaded_day_is_proven_from_the_log_alone(september, spark):
    assert recorded_checks([SEP_15]) == {SEP_15: OK_15}
    assert check_day(spark, "2026-09-16") == OK_15
    assert check_day(spark, "2026-09-16", deep=True) == OK_15


def test_check_day_py_answers_without_starting_spark(september):
    """With no Java to start, the script still answers from the log; --deep needs Spark and says so."""
    no_java = {**os.environ, "JAVA_HOME": "/nonexistent", "PATH": "/usr/bin:/bin"}
    done = run_script("check_day.py", "2026-09-16", cwd=september, env=no_java)
    assert (done.returncode, done.stdout) == (0, OK_15[1] + "\n"), done.stderr
    deep = run_script("check_day.py", "2026-09-16", "--deep", cwd=september, env=no_java)
    assert deep.returncode != 0 and "ok" not in deep.stdout


FOREIGN_WRITES = {  # the statement, check_day's verdict, history.py's operation, predicate and rows written
    "insert": ("INSERT INTO {table} VALUES (9001, 'C99', 5.00, TIMESTAMP'2026-09-15 10:00:00', DATE'2026-09-15')",
               (False, "PROBLEM 2026-09-15: 4 rows for the file's 3 orders, 1 not in the file (9001)"),
               ("WRITE", "-", 1)),
    "delete": ("DELETE FROM {table} WHERE order_id = 2059",
               (False, "PROBLEM 2026-09-15: 2 rows for the file's 3 orders, 1 missing (2059)"),
               ("DELETE", "(order_id = 2059)", 0)),
    "update": ("UPDATE {table} SET amount = amount + 1 WHERE order_id = 2059",
               (False, "PROBLEM 2026-09-15: 3 rows for the file's 3 orders, 1 differing (2059); "
                       "order 2059: amount 25.90 in the table, 24.90 in the file"),
               ("UPDATE", "(order_id = 2059)", 1)),
    "replace_where": ("INSERT INTO {table} REPLACE WHERE order_date = DATE'2026-09-15' "
                      "SELECT * FROM {table} WHERE order_date = DATE'2026-09-15' AND order_id <> 2060",
                      (False, "PROBLEM 2026-09-15: 2 rows for the file's 3 orders, 1 missing (2060)"),
                      ("WRITE", "(order_date = DATE '2026-09-15')", 2)),
}


@pytest.mark.parametrize("kind", FOREIGN_WRITES)
def test_another_writer_on_the_day_sends_the_check_to_the_rows(september, spark, kind):
    statement, verdict, commit = FOREIGN_WRITES[kind]
    table_sql(spark, statement)
    assert recorded_checks([SEP_15, SEP_14]) == {SEP_14: (True, check_day(spark, "2026-09-15", deep=True)[1])}
    assert check_day(spark, "2026-09-16") == verdict
    states = {state.day: state for state in month_states(spark, "2026-09")}
    assert (states[SEP_15].matches, states[SEP_15].message) == verdict  # check_month agrees with check_day
    newest = table_history(spark, 1)[0]  # history.py: the rows it wrote anew, its predicate without Spark's ids
    assert (newest["operation"], newest["predicate"], newest["rows_written"]) == commit


def test_a_delete_through_a_deletion_vector_is_caught(september, spark):
    table_sql(spark, "ALTER TABLE {table} SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')")
    assert recorded_checks([SEP_15]) == {SEP_15: OK_15}  # a change of properties touches no day
    table_sql(spark, "DELETE FROM {table} WHERE order_id = 2059")
    newest = sorted((table_path() / "_delta_log").glob("*.json"))[-1].read_text().splitlines()
    assert any(json.loads(line).get("add", {}).get("deletionVector") for line in newest)  # a vector, not a rewrite
    assert recorded_checks([SEP_15]) == {}
    assert check_day(spark, "2026-09-16") == (False, "PROBLEM 2026-09-15: 2 rows for the file's 3 orders, "
                                                     "1 missing (2059)")


def test_a_write_of_another_day_leaves_the_proof(september, spark):
    table_sql(spark, "INSERT INTO {table} VALUES (9001, 'C99', 5.00, TIMESTAMP'2026-10-01 10:00:00', DATE'2026-10-01')")
    assert recorded_checks([SEP_15]) == {SEP_15: OK_15}


def test_a_changed_file_or_a_restore_proves_nothing(september, spark):
    original = day_file(SEP_15).read_bytes()
    day_file(SEP_15).write_bytes(original.replace(b"2059,", b"2099,"))
    assert recorded_checks([SEP_15]) == {}
    assert check_day(spark, "2026-09-16")[0] is False
    day_file(SEP_15).write_bytes(original)
    restore_days(spark, SEP_15, SEP_15, 28)
    assert recorded_checks([SEP_15]) == {}
    assert check_day(spark, "2026-09-16") == OK_15


# The same rules on logs written here by hand, no Spark: each commit a list of actions as Delta writes them
# (or a text that is not JSON), None for a version missing from the log.
DAY = dt.date(2026, 9, 15)
LINES = b"order_id,customer_id,amount,ordered_at\n7,C1,1.00,2026-09-15T10:00:00\n9,C2,2.00,2026-09-15T11:00:00\n"
OK_LOG = (True, "ok 2026-09-15: 2 rows for the file's 2 orders, 0 missing")


def added(path: str, first: str, last: str, rows: int = 2, low: int = 7, high: int = 9, **more) -> dict:
    stats = {"numRecords": rows, "minValues": {"order_id": low, "order_date": first},
             "maxValues": {"order_id": high, "order_date": last}}
    return {"add": {"path": path, "partitionValues": {}, "stats": json.dumps(stats), **more}}


def loaded(days=(str(DAY),), **entry) -> dict:
    lineage = [{"day": day, "run_date": "2026-09-16", "sha256": hashlib.sha256(LINES).hexdigest(),
                "rows_written": 2, "lowest": 7, "highest": 9, **entry} for day in days]
    return {"commitInfo": {"userMetadata": json.dumps(lineage[0] if len(days) == 1 else {"days": lineage})}}


def found_in_log(folder, commits):
    """What recorded_checks finds for DAY below folder, whose table's log holds commits."""
    with root_at(folder):
        day_file(DAY).parent.mkdir(parents=True)
        day_file(DAY).write_bytes(LINES)
        log = table_path() / "_delta_log"
        log.mkdir(parents=True)
        for version, actions in enumerate(commits):
            text = actions if isinstance(actions, str) else "".join(json.dumps(action) + "\n" for action in actions or [])
            if actions is not None:
                (log / f"{version:020d}.json").write_text(text)
        return recorded_checks([DAY]).get(DAY)


LOAD = [loaded(), added("a.parquet", "2026-09-15", "2026-09-15")]
OTHER_DAY = [added("b.parquet", "2026-09-16", "2026-09-16")]
TWO_DAYS = [loaded(("2026-09-15", "2026-09-16")), added("a.parquet", "2026-09-15", "2026-09-16", rows=4)]
LOGS = {
    "a load": ([LOAD], OK_LOG),
    "a load, then another day's file": ([LOAD, OTHER_DAY], OK_LOG),
    "a load, then a file that takes in the day": ([LOAD, [added("b.parquet", "2026-09-14", "2026-09-16")]], None),
    "a load, then a file without statistics": ([LOAD, [{"add": {"path": "b.parquet"}}]], None),
    "a load, then its file removed": ([LOAD, [{"remove": {"path": "a.parquet"}}]], None),
    "a load, then a gap in the log": ([LOAD, None, OTHER_DAY], None),
    "a load, then a commit that is not JSON": ([LOAD, "{not json\n"], None),
    "a load, then a restore of the day": ([LOAD, [{"commitInfo": {"userMetadata": "restore_day: 2026-09-15 from version 0"}}]], None),
    "a load whose file lacks a row": ([[loaded(), added("a.parquet", "2026-09-15", "2026-09-15", rows=1, high=7)]], None),
    "a load whose file has a deletion vector": ([LOAD[:1] + [added("a.parquet", "2026-09-15", "2026-09-15",
                                                                   deletionVector={"storageType": "u"})]], None),
    "a load of one day beside the month's rows Delta copied": (
        [LOAD + [added("m.parquet", "2026-09-01", "2026-09-30", rows=50, low=1, high=99)]], OK_LOG),
    "a commit of two days whose file holds both": ([TWO_DAYS], OK_LOG),
    "a commit of two days, then a file of the other day": ([TWO_DAYS, [added("b.parquet", "2026-09-16", "2026-09-16")]],
                                                           OK_LOG),
    "a commit of two days, then their file removed": ([TWO_DAYS, [{"remove": {"path": "a.parquet"}}]], None),
    "a commit of two days whose file lacks a row": ([TWO_DAYS[:1] + [added("a.parquet", "2026-09-15", "2026-09-16",
                                                                           rows=3)]], None),
    "a commit of two days whose file has a deletion vector": ([TWO_DAYS[:1] + [added(
        "a.parquet", "2026-09-15", "2026-09-16", rows=4, deletionVector={"storageType": "u"})]], None),
    "a commit of two days, a file of the day and one that takes it in": (
        [[loaded(("2026-09-15", "2026-09-16"))] + LOAD[1:] + [added("x.parquet", "2026-09-15", "2026-09-16")]], OK_LOG),
    "a commit of two days, a file of the day and one of both short of a row": (
        [[loaded(("2026-09-15", "2026-09-16"))] + LOAD[1:] + [added("x.parquet", "2026-09-15", "2026-09-16", rows=1)]],
        None),
    "a compaction's commit, which carries the days' lineage": (
        [[{"commitInfo": {"userMetadata": json.dumps({"upkeep": "compacted 2026-09", "days": json.loads(
            TWO_DAYS[0]["commitInfo"]["userMetadata"])["days"]})}}] + TWO_DAYS[1:]], None),
    "a load of a file that has changed since": ([[loaded(sha256="0" * 64)] + LOAD[1:]], None),
    "a lineage without the id range": ([[{"commitInfo": {"userMetadata": json.dumps(
        {"day": "2026-09-15", "sha256": hashlib.sha256(LINES).hexdigest(), "rows_written": 2})}}] + LOAD[1:]], None),
}


@pytest.mark.parametrize("case", LOGS)
def test_the_record_proves_a_day_only_as_docs_check_md_says(case, tmp_path):
    commits, expected = LOGS[case]
    assert found_in_log(tmp_path, commits) == expected
