import datetime as dt

from conftest import LATE_ORDER, SEP_15, append_line, run_script, table_rows, table_version
from check_day import check_day, main as check_day_main
from check_month import check_month, main as check_month_main
from delta_session import orders_table
from shoptoolkit.storage.project_paths import day_file
from history import main as history_main, table_history
from load_day import load_day, main as load_day_main

SEPTEMBER_ALL_OK = """\
September 2026: 30 ok
Mon    Tue    Wed    Thu    Fri    Sat    Sun
        1 ok   2 ok   3 ok   4 ok   5 ok   6 ok
 7 ok   8 ok   9 ok  10 ok  11 ok  12 ok  13 ok
14 ok  15 ok  16 ok  17 ok  18 ok  19 ok  20 ok
21 ok  22 ok  23 ok  24 ok  25 ok  26 ok  27 ok
28 ok  29 ok  30 ok
"""


def test_first_load_creates_the_table_with_an_order_date_column(days, spark):
    assert load_day(spark, "2026-09-03") == "run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 5"
    table = orders_table(spark)
    assert [(f.name, f.dataType.simpleString()) for f in table.schema.fields] == [
        ("order_id", "bigint"), ("customer_id", "string"), ("amount", "decimal(12,2)"),
        ("ordered_at", "timestamp"), ("order_date", "date")]
    assert spark.table("orders_daily").count() == 5


def test_correcting_one_day_replaces_only_that_day(september, spark, capsys):
    others_before = [row for row in table_rows(spark) if row[4] != SEP_15]
    append_line(SEP_15, LATE_ORDER)
    assert load_day_main(["2026-09-16"]) == 0
    assert capsys.readouterr().out == "run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131\n"
    assert check_day(spark, "2026-09-16") == (True, "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing")
    newest = table_history(spark, 1)[0]
    assert (newest["operation"], newest["predicate"], newest["rows_written"]) == (
        "WRITE", "order_date = DATE'2026-09-15'", 4)
    assert [row for row in table_rows(spark) if row[4] != SEP_15] == others_before
    assert (2131, "C02") in [row[:2] for row in table_rows(spark, SEP_15)]


def test_rerunning_a_day_changes_no_content(september, spark):
    before = table_rows(spark)
    load_day(spark, "2026-09-21")
    assert table_rows(spark) == before


def test_check_day_finds_missing_and_duplicated_orders(september, spark, capsys):
    spark.sql("DELETE FROM orders_daily WHERE order_id = 2059")
    assert check_day(spark, "2026-09-16") == (
        False, "PROBLEM 2026-09-15: 2 rows for the file's 3 orders, 1 missing (2059)")
    spark.sql("INSERT INTO orders_daily SELECT * FROM orders_daily WHERE order_id = 2060")
    assert check_day(spark, "2026-09-16")[1] == (
        "PROBLEM 2026-09-15: 3 rows for the file's 3 orders, 1 missing (2059), 1 duplicated (2060)")
    assert check_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr().out.startswith("PROBLEM 2026-09-15: 3 rows")


def test_check_day_says_when_the_file_is_gone(september, spark):
    day_file(dt.date(2026, 9, 20)).unlink()
    assert check_day(spark, "2026-09-21") == (False, "PROBLEM 2026-09-20: no file, 3 rows")


def test_check_month_ok_and_problem_lines(september, spark, capsys):
    assert check_month_main(["2026-09"]) == 0
    assert capsys.readouterr().out == SEPTEMBER_ALL_OK + "\nok 2026-09: all 30 days match their files, 130 orders\n"
    spark.sql("DELETE FROM orders_daily WHERE order_id = 2054")
    assert check_month(spark, "2026-09") == (False, [
        "PROBLEM 2026-09-13: 2 rows for the file's 3 orders, 1 missing (2054)",
        "PROBLEM 2026-09: 1 of 30 days do not match"])


def test_check_month_counts_a_day_with_no_file_and_no_rows(september, spark):
    """A day whose file never came: the backfill fails that day's run alone and goes on past it."""
    from backfill import backfill
    day_file(dt.date(2026, 9, 20)).unlink()
    spark.sql("DELETE FROM orders_daily WHERE order_date = '2026-09-20'")
    others = table_rows(spark)
    failed, closing = backfill(spark, "2026-09-20", "2026-09-22", show=lambda line: None)
    assert failed == [dt.date(2026, 9, 21)]
    assert closing == "ran 3 runs, 1 failed (2026-09-21); orders_daily has 29 days, 127 orders"
    assert table_rows(spark) == others
    assert check_month(spark, "2026-09") == (False, [
        "PROBLEM 2026-09-20: no file, 0 rows", "PROBLEM 2026-09: 1 of 30 days do not match"])


def test_history_lists_newest_first_with_limit(september, spark, capsys):
    append_line(SEP_15, LATE_ORDER)
    load_day(spark, "2026-09-16")
    assert history_main(["--limit", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("version 30 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file ")
    assert lines[1].startswith("version 29 | WRITE | order_date = DATE'2026-09-30' | 6 | run 2026-10-01 | file ")


def test_bad_row_is_one_line_and_leaves_the_table_as_it_was(september, spark, capsys):
    version, before = table_version(spark), table_rows(spark)
    append_line(SEP_15, "2131,C02,lots,2026-09-15T20:30:00")
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr().err == (
        "error: landing/orders/2026-09-15.csv line 5: amount 'lots' is not a number like 19.99\n")
    assert (table_version(spark), table_rows(spark)) == (version, before)


def test_missing_day_file_is_one_line_and_changes_nothing(september, spark, capsys):
    version = table_version(spark)
    day_file(dt.date(2026, 9, 20)).unlink()
    assert load_day_main(["2026-09-21"]) == 1
    assert capsys.readouterr().err == "error: no file landing/orders/2026-09-20.csv for run 2026-09-21\n"
    assert table_version(spark) == version


def test_cli_error_has_no_java_trace(september):
    with open(day_file(SEP_15), "a") as handle:
        handle.write("2131,C02,19.99\n")
    done = run_script("load_day.py", "2026-09-16", cwd=september)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == "error: landing/orders/2026-09-15.csv line 5: 3 fields, expected 4\n"


def test_a_big_day_is_compared_inside_spark_with_the_same_lines(september, spark, monkeypatch):
    """Above IDS_IN_PYTHON orders check_day compares in Spark; its lines are the small days' lines."""
    from shoptoolkit.truth import day_truth as module  # the route's choice, made once for every checker
    spark.sql("DELETE FROM orders_daily WHERE order_id = 2059")
    spark.sql("INSERT INTO orders_daily SELECT 9001, customer_id, amount, ordered_at, order_date "
              "FROM orders_daily WHERE order_id = 2060")
    spark.sql("INSERT INTO orders_daily SELECT * FROM orders_daily WHERE order_id = 2060")
    in_python = check_day(spark, "2026-09-16")
    monkeypatch.setattr(module, "IDS_IN_PYTHON", 0)
    assert check_day(spark, "2026-09-16") == in_python == (
        False, "PROBLEM 2026-09-15: 4 rows for the file's 3 orders, 1 missing (2059), "
               "1 not in the file (9001), 1 duplicated (2060)")
    assert check_day(spark, "2026-09-02") == (True, "ok 2026-09-01: 4 rows for the file's 4 orders, 0 missing")


def test_orders_daily_is_a_view_of_this_session_that_sees_each_new_commit(days, spark):
    load_day(spark, "2026-09-03")
    assert spark.table("orders_daily").count() == 5
    load_day(spark, "2026-09-04")  # a new commit: the same view, read again, sees it
    assert spark.table("orders_daily").count() == 9
    assert [table.isTemporary for table in spark.catalog.listTables() if table.name == "orders_daily"] == [True]
    assert not spark.newSession().catalog.tableExists("orders_daily")
