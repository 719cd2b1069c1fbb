"""check_day answers from the load's own record in the Delta log (shoptoolkit/truth/day_record.py) while nothing
else touched the day, and by comparing its rows with the file as soon as anything did: here a plain Spark session writes the
table as any other Delta client would, and each of its writes is caught. Then the same rules on logs
written here by hand (no Spark): what proves a day and what does not, one case each."""
import json
import os

import pytest

from conftest import SEP_15, run_script
from check_day import check_day
from check_month import month_states
from history import table_history
from record_logs import LOGS, found_in_log
from restore_day import restore_days
from shoptoolkit.storage.project_paths import day_file, table_path
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


# The same rules on logs written by hand, no Spark (support/record_logs.py, which storage/test_storage.py
# asks of a bucket too).
@pytest.mark.parametrize("case", LOGS)
def test_the_record_proves_a_day_only_as_docs_check_md_says(case, tmp_path):
    commits, expected = LOGS[case]
    assert found_in_log(tmp_path, commits) == expected
