"""`ok` means the day's rows are its file's orders, values and times included, whoever wrote them last:
another writer's change of a value is named; a day another writer reloaded from its corrected file is ok
for check_day and check_month alike; a session in any time zone stores and checks the file's UTC times;
and check_day, check_month and --reprocess give every day the same verdict after any other writer's
operation, with the file unchanged, edited before that write or after it."""
import datetime as dt
import os
import sys
from collections import Counter

import pytest

from backfill import main as backfill_main
from check_day import check_day, main as check_day_main
from check_month import check_month, main as check_month_main, month_states
from conftest import SEP_15, append_line
from load_day import load_day
from shoptoolkit.dates import run_dates
from shoptoolkit.row_values import table_columns, table_values
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.table.delta_table import orders_table
from shoptoolkit.table_schema import CSV_OPTIONS, columns_ddl
from shoptoolkit.till import in_spark
from shoptoolkit.till.in_python import read_day_file
from shoptoolkit.truth.reprocess import dates_to_run

AMOUNT_2047 = ("PROBLEM 2026-09-12: 5 rows for the file's 5 orders, 1 differing (2047); "
               "order 2047: amount 450.00 in the table, 4.50 in the file")
ZONES = ("UTC", "America/New_York", "Asia/Kolkata")


def table_sql(spark, statement: str) -> None:
    """A write of another Delta client: plain Spark SQL on the table's path, none of the toolkit's code."""
    spark.sql(statement.replace("{table}", f"delta.`{table_path()}`"))


def replace_from_file(spark, day) -> None:
    """Another writer's correction of a day: its file read with the schema, written with replaceWhere."""
    from pyspark.sql import functions as F
    (spark.read.schema(columns_ddl()).options(**CSV_OPTIONS).csv(str(day_file(day)))
     .withColumn("order_date", F.lit(day)).write.format("delta").mode("overwrite")
     .option("replaceWhere", f"order_date = '{day}'").save(str(table_path())))


def test_another_writers_changed_amount_is_named_by_every_check(september, spark, monkeypatch, capsys):
    table_sql(spark, "UPDATE {table} SET amount = amount * 100 WHERE order_id = 2047")
    assert check_day(spark, "2026-09-13") == check_day(spark, "2026-09-13", deep=True) == (False, AMOUNT_2047)
    assert check_day_main(["2026-09-13"]) == 1
    assert capsys.readouterr().out == AMOUNT_2047 + "\n"
    monkeypatch.setattr("shoptoolkit.truth.day_truth.IDS_IN_PYTHON", 0)  # compared inside Spark: the same line
    assert check_day(spark, "2026-09-13", deep=True) == (False, AMOUNT_2047)
    states = {found.day: found for found in month_states(spark, "2026-09")}
    assert (states[dt.date(2026, 9, 12)].state, states[dt.date(2026, 9, 12)].message) == ("mismatch", AMOUNT_2047)


def test_a_time_another_writer_moved_is_named_in_utc(september, spark):
    table_sql(spark, "UPDATE {table} SET ordered_at = ordered_at + INTERVAL 4 HOURS WHERE order_id = 2047")
    spark.conf.set("spark.sql.session.timeZone", "America/New_York")
    try:
        assert check_day(spark, "2026-09-13") == (False, (
            "PROBLEM 2026-09-12: 5 rows for the file's 5 orders, 1 differing (2047); "
            "order 2047: ordered_at 2026-09-12T15:06:34 in the table, 2026-09-12T11:06:34 in the file"))
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


def test_a_day_another_writer_reloaded_from_its_corrected_file_is_ok_for_both_checks(days, spark):
    assert backfill_main(["2026-09-02", "2026-10-01", "--days-per-commit", "all"]) == 0
    sep_3 = dt.date(2026, 9, 3)
    append_line(sep_3, "2131,C02,19.99,2026-09-03T20:30:00")
    replace_from_file(spark, sep_3)
    ok_3 = (True, "ok 2026-09-03: 5 rows for the file's 5 orders, 0 missing")
    assert check_day(spark, "2026-09-04") == ok_3
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 131 orders"])
    load_day(spark, "2026-09-11")  # later loads of other days change nothing
    found = {state.day: state for state in month_states(spark, "2026-09")}[sep_3]
    assert (found.state, found.message, found.loaded) == ("ok", ok_3[1], {})
    assert dates_to_run(spark, "2026-09-04", "2026-09-04", "changed") == []


@pytest.mark.parametrize("zone", ZONES)
def test_every_session_zone_stores_and_checks_the_files_utc_times(days, spark, zone, monkeypatch):
    append_line(SEP_15, "2131,C02,19.99,2026-09-15T23:59:59")  # near midnight on either side
    append_line(SEP_15, "2132,C03,4.50,2026-09-15T00:00:01")
    spark.conf.set("spark.sql.session.timeZone", zone)
    try:
        with monkeypatch.context() as patch:
            if zone == "Asia/Kolkata":
                patch.setattr(in_spark, "SPARK_CHECK_BYTES", 0)  # the Spark path's load
            load_day(spark, "2026-09-16")
        load_day(spark, "2026-09-17")
        stored = {row[0]: table_values(row[1:]) for row in orders_table(spark).where("order_date = '2026-09-15'")
                  .select(*table_columns()).collect()}
        assert stored == read_day_file(SEP_15).values  # the file's times read as UTC, whatever the zone
        for other in ZONES:  # checked in every zone, the same verdicts
            spark.conf.set("spark.sql.session.timeZone", other)
            assert check_day(spark, "2026-09-16", deep=True) == (
                True, "ok 2026-09-15: 5 rows for the file's 5 orders, 0 missing")
            assert [found.state for found in month_states(spark, "2026-09")][14:16] == ["ok", "ok"]
    finally:
        spark.conf.set("spark.sql.session.timeZone", "UTC")


FOREIGN = {  # another client's statements on a day's rows, order_id one of them
    "insert": ["INSERT INTO {table} VALUES ({new_id}, 'C99', 5.00, TIMESTAMP'{day} 10:00:00Z', DATE'{day}')"],
    "delete": ["DELETE FROM {table} WHERE order_id = {order_id}"],
    "update": ["UPDATE {table} SET amount = amount + 1 WHERE order_id = {order_id}"],
    "merge": ["MERGE INTO {table} t USING (SELECT {order_id} AS id, 30.00 AS amount) s ON t.order_id = s.id "
              "WHEN MATCHED THEN UPDATE SET amount = s.amount"],
    "replace_where": None,  # replace_from_file: the day from its file as it is at that moment
    "delete_day": ["DELETE FROM {table} WHERE order_date = DATE'{day}'"],
    "vectors": ["ALTER TABLE {table} SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
                "DELETE FROM {table} WHERE order_id = {order_id}"],
    "optimize": ["OPTIMIZE {table}"],
}
# Three days, each with one of its orders: the file unchanged, edited (a late order) before the other
# writer's statements, edited after them.
DAYS = {"unchanged": (dt.date(2026, 9, 13), 2052), "before": (dt.date(2026, 9, 14), 2055),
        "after": (dt.date(2026, 9, 15), 2059)}
# The day's state after each kind of write, for each of the three days.
STATES = {"insert": "mismatch", "delete": "mismatch", "update": "mismatch", "merge": "mismatch",
          "replace_where": ("ok", "ok", "changed"), "delete_day": "missing", "vectors": "mismatch",
          "optimize": ("ok", "changed", "changed")}


def late_order(day, order_id: int) -> str:
    return f"{order_id},C02,19.99,{day}T20:30:00"


@pytest.mark.parametrize("kind", FOREIGN)
def test_every_check_gives_each_day_one_verdict_after_another_writer(september, spark, kind):
    """check_day (from the record or the rows, and --deep), check_month's states and --reprocess agree on
    every day of the month after another client's write, on a day whose file is unchanged, edited before
    the write and edited after it."""
    append_line(DAYS["before"][0], late_order(DAYS["before"][0], 3001))
    for number, (day, order_id) in enumerate(DAYS.values()):
        for statement in FOREIGN[kind] or []:
            if number == 0 or "{day}" in statement or "{order_id}" in statement:  # one on the table: once
                table_sql(spark, statement.format(table="{table}", day=day, order_id=order_id, new_id=9001 + number))
        if FOREIGN[kind] is None:
            replace_from_file(spark, day)
    append_line(DAYS["after"][0], late_order(DAYS["after"][0], 3002))
    states = month_states(spark, "2026-09")
    by_day = {found.day: found.state for found in states}
    expected = STATES[kind] if isinstance(STATES[kind], tuple) else (STATES[kind],) * 3
    assert [by_day[day] for day, _ in DAYS.values()] == list(expected)
    assert [state for day, state in by_day.items() if day not in dict(DAYS.values())] == ["ok"] * 27
    chosen = set(dates_to_run(spark, "2026-09-02", "2026-10-01", "changed"))
    for found, run in zip(states, run_dates("2026-09-02", "2026-10-01")):
        verdict = check_day(spark, run)  # from the record where it proves the day, else from the rows
        assert verdict[0] == (found.state == "ok")
        assert found.state == "changed" or verdict == (found.matches, found.message)
        assert (run in chosen) == (found.state in ("changed", "mismatch", "missing"))
        if found.day in dict(DAYS.values()):
            assert check_day(spark, run, deep=True)[0] == (found.state == "ok")


OPENED = []  # (path, mode) of every file this process opens while a test records them (sys.audit's "open")


def note_open(event, args):
    if event == "open" and OPENED and OPENED[0] == "recording" and isinstance(args[0], (str, bytes, os.PathLike)):
        OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(note_open)  # a hook stays for the process's life: it notes only while a test records


def opened_while(work) -> list:
    """The files this process opened while work ran (Spark's JVM reads are its own, not counted)."""
    OPENED[:] = ["recording"]
    try:
        work()
    finally:
        seen = OPENED[1:]
        OPENED.clear()
    return seen


def reads_of(seen: list, day) -> tuple:
    """(how many times the day's file was opened, the log's commit files opened more than once)."""
    commits = Counter(path for path in seen if "_delta_log" in path and path.endswith(".json"))
    return seen.count(str(day_file(day))), sorted(path for path, count in commits.items() if count > 1)


def test_the_route_reads_a_day_s_file_and_each_commit_once(september, spark, capsys):
    """check_day from the record, check_day of a changed day (the rows compared), check_month: each file
    of a day is read once, and each commit of the log once, however many steps use them."""
    seen = opened_while(lambda: check_day_main(["2026-09-16"]))
    assert reads_of(seen, SEP_15) == (1, [])
    append_line(SEP_15, "2131,C02,19.99,2026-09-15T20:30:00")
    seen = opened_while(lambda: check_day_main(["2026-09-16"]))
    assert reads_of(seen, SEP_15) == (1, [])
    seen = opened_while(lambda: check_month_main(["2026-09", "--today", "2026-10-01"]))
    assert [reads_of(seen, day)[0] for day in run_dates("2026-09-01", "2026-09-30")] == [1] * 30
    assert reads_of(seen, SEP_15)[1] == []
    assert capsys.readouterr().out.splitlines()[-1] == "PROBLEM 2026-09: 1 of 30 days do not match"
