"""When the till's file gains a column (docs/new_columns.md): refused by default, its line naming the
setting; `add` adds it to the table in the day's own commit, `rescue` keeps it per row in _rescued_data;
a declared type is checked line by line on both paths; the checks compare it where a file has it."""
import datetime as dt
import json
from decimal import Decimal

import pytest

from backfill import main as backfill_main
from check_day import check_day
from check_month import check_month, month_states
from conftest import SEP_15, table_rows
from fingerprint import table_state
from history import table_history
from load_day import load_day, main as load_day_main
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table import orders_table
from shoptoolkit.table.delta_table import history_frame
from shoptoolkit.table.load_lineage import commit_loads
from shoptoolkit.row_values import row_hash
from shoptoolkit.till.in_python import read_day_file
from shoptoolkit.till.new_columns import MODE_ENV, NewColumns, parse_types, using
from shoptoolkit.truth.day_record import recorded_checks
from shoptoolkit.truth.spark_compare import table_digest
from test_spark_check import FILLER, in_spark, moved, orders  # noqa: F401 (in_spark: a fixture)

FILE = "landing/orders/2026-09-15.csv"
HEADER = "order_id,customer_id,amount,ordered_at"
SEP_16 = dt.date(2026, 9, 16)
ROWS = ["2059,C11,24.90,2026-09-15T11:47:24",
        "2060,C05,15.40,2026-09-15T15:01:58",
        "2061,C10,19.99,2026-09-15T15:32:30"]


def with_column(header: str, *values) -> bytes:
    """The 15th's three orders with more columns: header's names, and values a row (a string each)."""
    lines = [f"{HEADER},{header}", *(f"{row},{more}" for row, more in zip(ROWS, values))]
    return "".join(line + "\n" for line in lines).encode()


def columns(spark) -> list:
    return [(field.name, field.dataType.simpleString()) for field in orders_table(spark).schema.fields]


def test_add_adds_the_column_in_the_days_own_commit(september, spark, capsys):
    before = table_history(spark, 1)[0]["version"]
    day_file(SEP_15).write_bytes(with_column("channel", "web", "store", ""))
    assert load_day_main(["2026-09-16", "--on-new-column", "add"]) == 0
    assert capsys.readouterr() == ("run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130\n", "")
    newest = table_history(spark, 1)[0]
    assert (newest["version"], newest["operation"]) == (before + 1, "WRITE")
    assert columns(spark)[-1] == ("channel", "string")
    assert [row[-1] for row in table_rows(spark, SEP_15)] == ["web", "store", None]
    assert {row[-1] for row in table_rows(spark) if row[4] != SEP_15} == {None}
    metadata = history_frame(spark, 1).first().userMetadata
    assert json.loads(metadata)["columns_added"] == {"channel": "STRING"}
    ok = (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
    assert check_day(spark, "2026-09-16") == ok and check_day(spark, "2026-09-16", deep=True) == ok


def big(content: bytes, filler_fields: str) -> bytes:
    """content with FILLER orders after its header, each with filler_fields for the new columns: a file
    that takes the Spark path (in_spark), its own lines at the end."""
    first, _, rest = content.partition(b"\n")
    filler = "".join(f"{line},{filler_fields}\n" for line in orders(SEP_15, FILLER, 500_000)).encode()
    return first + b"\n" + filler + rest


ADD = ["2026-09-16", "--on-new-column", "add"]
# A file gaining columns the table cannot take, whatever the setting: (its bytes, the refusal).
REFUSED_HEADERS = {
    "a renamed column": (b"order_id,client_id,amount,ordered_at\n2059,C11,24.90,2026-09-15T11:47:24\n",
                         f"{FILE} line 1: missing column customer_id; unexpected column client_id (expected {HEADER}): "
                         f"a column renamed or dropped is refused whatever --on-new-column says"),
    "a column differing from the table's only in case": (
        with_column("Amount", "1", "2", "3"),
        f"{FILE} line 1: column Amount differs from the table's column amount only in case "
        f"(Delta's column names are case-insensitive)"),
    "two new columns differing only in case": (
        with_column("channel,Channel", "a,b", "a,b", "a,b"),
        f"{FILE} line 1: column channel differs from the file's column Channel only in case "
        f"(Delta's column names are case-insensitive)"),
    "a space at a name's end": (with_column("channel ", "web", "web", "web"),
                                f"{FILE} line 1: column name 'channel ' has a space at its ends"),
    "a control character in a name": (with_column("chan\x1bnel", "web", "web", "web"),
                                      f"{FILE} line 1: column name 'chan\\x1bnel' holds a control character ('\\x1b')"),
    "a name Delta does not take as it is": (
        with_column("sales channel", "web", "web", "web"),
        f"{FILE} line 1: column name 'sales channel' is not one Delta takes as it is (letters, digits and _, "
        f"not a digit first)"),
    "the table's own name": (with_column("order_date", "x", "x", "x"),
                             f"{FILE} line 1: column order_date is a name the table keeps for itself"),
}
# A declared type the values do not fit: (the declaration, the column's values on lines 2 to 4, the refusal).
BAD_VALUES = {
    "DECIMAL(10,2)": ("discount DECIMAL(10,2)", ("1.50", "", "1.234"),
                      f"{FILE} line 4: discount '1.234' is not a number like 19.99"),
    "DATE": ("discount DATE", ("2026-09-01", "2026-02-30", ""),
             f"{FILE} line 3: discount '2026-02-30' is not a date like 2026-09-15"),
    "BOOLEAN": ("discount BOOLEAN", ("true", "yes", "False"), f"{FILE} line 3: discount 'yes' is not true or false"),
    "INT": ("discount INT", ("3", "-1", "3.0"), f"{FILE} line 4: discount '3.0' is not a whole number"),
}


@pytest.mark.parametrize("mode", ["add", "rescue"])
@pytest.mark.parametrize("case", REFUSED_HEADERS)
def test_a_column_the_table_cannot_take_is_refused_in_one_line(case, mode, september, spark, capsys):
    before, schema = table_state(spark), columns(spark)
    day_file(SEP_15).write_bytes(REFUSED_HEADERS[case][0])
    assert load_day_main(["2026-09-16", "--on-new-column", mode]) == 1
    assert capsys.readouterr() == ("", f"error: {REFUSED_HEADERS[case][1]}\n")
    assert (table_state(spark), columns(spark)) == (before, schema)


@pytest.mark.parametrize("path", ["python", "spark"])
@pytest.mark.parametrize("case", BAD_VALUES)
def test_a_declared_type_the_values_do_not_fit_is_refused_at_its_line(case, path, september, spark, capsys, request):
    declared, values, refusal = BAD_VALUES[case]
    content = with_column("discount", *values)
    if path == "spark":
        request.getfixturevalue("in_spark")
        content, refusal = big(content, ""), moved(refusal)
    before, schema = table_state(spark), columns(spark)
    day_file(SEP_15).write_bytes(content)
    assert load_day_main([*ADD, "--column-types", declared]) == 1
    assert capsys.readouterr() == ("", f"error: {refusal}\n")
    assert (table_state(spark), columns(spark)) == (before, schema)


def test_declared_types_load_as_the_table_types_them_and_check_ok(september, spark):
    day_file(SEP_15).write_bytes(with_column("discount,opened,member,visits", "1.5,2026-09-01,true,3", ",,,",
                                             "0.25,2026-09-14,FALSE,-1"))
    assert load_day(spark, "2026-09-16", on_new_column="add",
                    column_types="discount DECIMAL(10,2), opened DATE, member BOOLEAN, visits INT") == (
        "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130")
    assert columns(spark)[-4:] == [("discount", "decimal(10,2)"), ("opened", "date"), ("member", "boolean"),
                                   ("visits", "int")]
    assert [row[-4:] for row in table_rows(spark, SEP_15)] == [
        (Decimal("1.50"), dt.date(2026, 9, 1), True, 3), (None, None, None, None),
        (Decimal("0.25"), dt.date(2026, 9, 14), False, -1)]
    ok = (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
    assert check_day(spark, "2026-09-16") == ok and check_day(spark, "2026-09-16", deep=True) == ok


def test_a_decimal_columns_minus_zero_is_recorded_as_the_table_holds_it(september, spark):
    """Java's BigDecimal has no -0: the table holds -0.00 as 0.00, and the digest the load records writes
    the zero without its sign too, so the record proves the day and the load's lineage speaks for its rows
    (a change of the file after it makes the day `changed`, not `mismatch`)."""
    day_file(SEP_15).write_bytes(with_column("discount", "-0.00", "-0", "1.50"))
    assert load_day(spark, "2026-09-16", on_new_column="add", column_types="discount DECIMAL(10,2)") == (
        "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130")
    assert [row[-1] for row in table_rows(spark, SEP_15)] == [Decimal("0.00"), Decimal("0.00"), Decimal("1.50")]
    ok = (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
    assert recorded_checks([SEP_15]) == {SEP_15: ok} and check_day(spark, "2026-09-16") == ok
    assert check_day(spark, "2026-09-16", deep=True) == ok  # the rows compared
    entry, = commit_loads(history_frame(spark, 1).first().userMetadata)
    assert entry["rows_digest"] == table_digest(spark, SEP_15)
    day_file(SEP_15).write_bytes(with_column("discount", "-0.00", "-0", "2.50"))
    assert {found.day: found.state for found in month_states(spark, "2026-09")}[SEP_15] == "changed"


def test_rescue_keeps_the_tables_columns_and_puts_new_ones_in_rescued_data(september, spark, capsys):
    """A quoted field with a comma is one field, as the csv module reads it: nothing of it is lost."""
    day_file(SEP_15).write_bytes(with_column("channel,till", '"web,store",7', "store,", ","))
    assert load_day_main(["2026-09-16", "--on-new-column", "rescue"]) == 0
    assert capsys.readouterr().out == "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130\n"
    assert [name for name, _ in columns(spark)] == [
        "order_id", "customer_id", "amount", "ordered_at", "order_date", "_rescued_data"]
    assert [row[-1] for row in table_rows(spark, SEP_15)] == ['{"channel":"web,store","till":"7"}',
                                                               '{"channel":"store"}', None]
    ok = (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
    assert check_day(spark, "2026-09-16") == ok and check_day(spark, "2026-09-16", deep=True) == ok


def test_a_day_whose_file_gains_the_column_after_its_load_is_changed_and_its_reload_adds_it(september, spark,
                                                                                             monkeypatch):
    day_file(SEP_15).write_bytes(with_column("channel", "web", "store", "web"))
    ok, lines = check_month(spark, "2026-09")
    assert not ok and lines[-2].startswith("PROBLEM 2026-09-15: file changed since run 2026-09-16 loaded it")
    assert check_day(spark, "2026-09-16") == (
        False, "PROBLEM 2026-09-15: 3 rows for the file's 3 orders, 3 differing (2059, 2060, 2061); "
               "order 2059: channel null in the table, web in the file")
    monkeypatch.setenv(MODE_ENV, "add")  # read when asked, as SHOP_ROOT is
    assert load_day(spark, "2026-09-16") == "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130"
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 130 orders"])


def test_a_later_day_without_the_column_reads_null_and_its_check_says_so(september, spark, capsys):
    day_file(SEP_15).write_bytes(with_column("channel", "web", "store", "web"))
    assert backfill_main(["2026-09-16", "2026-09-17", "--on-new-column", "add"]) == 0
    count = len(day_file(SEP_16).read_text().splitlines()) - 1
    ok = f"ok 2026-09-16: {count} rows for the file's {count} orders, 0 missing; no channel in the file (null in the table)"
    assert capsys.readouterr().out.splitlines()[1].startswith(
        f"2/2 run 2026-09-17 loaded 2026-09-16: {count} rows, orders_daily has 130; {ok} (")
    assert {row[-1] for row in table_rows(spark, SEP_16)} == {None}
    assert check_day(spark, "2026-09-17") == (True, ok) and check_day(spark, "2026-09-17", deep=True) == (True, ok)
    assert check_day(spark, "2026-09-11") == (True, "ok 2026-09-10: 3 rows for the file's 3 orders, 0 missing; "
                                                    "no channel in the file (null in the table)")
    assert check_month(spark, "2026-09") == (True, ["ok 2026-09: all 30 days match their files, 130 orders"])


def test_a_setting_that_is_not_one_of_the_three_is_a_usage_error(september, spark, monkeypatch, capsys):
    monkeypatch.setenv(MODE_ENV, "maybe")
    assert load_day_main(["2026-09-16"]) == 2
    assert capsys.readouterr() == ("", "error: SHOP_ON_NEW_COLUMN='maybe' is not one of fail, add, rescue\n")


def test_a_big_day_with_a_new_column_is_checked_in_spark_and_compared_there(september, spark, in_spark):
    day_file(SEP_15).write_bytes(big(with_column("channel", "web", "store", ""), "till"))
    assert load_day(spark, "2026-09-16", on_new_column="add") == (
        f"run 2026-09-16 loaded 2026-09-15: {FILLER + 3} rows, orders_daily has {FILLER + 130}")
    ok = (True, f"ok 2026-09-15: {FILLER + 3} rows for the file's {FILLER + 3} orders, 0 missing")
    assert check_day(spark, "2026-09-16", deep=True) == ok
    spark.sql("UPDATE orders_daily SET channel = 'web' WHERE order_id = 2061")
    assert check_day(spark, "2026-09-16") == (
        False, f"PROBLEM 2026-09-15: {FILLER + 3} rows for the file's {FILLER + 3} orders, 1 differing (2061); "
               f"order 2061: channel web in the table, null in the file")


def test_the_declaration_reads_as_auto_loaders_schema_hints():
    assert parse_types("channel STRING, discount decimal(10, 2),opened DATE, visits INTEGER, ok BOOLEAN") == {
        "channel": "STRING", "discount": "DECIMAL(10,2)", "opened": "DATE", "visits": "INT", "ok": "BOOLEAN"}
    assert parse_types("") == {}
    with pytest.raises(ValueError, match="^'discount MONEY' is not a column and its type like"):
        parse_types("channel STRING, discount MONEY")


def test_a_new_columns_values_are_typed_as_the_table_holds_them_in_python(days):
    """No Spark: the Python path's check of a file with new columns, and its orders' values."""
    day_file(SEP_15).write_bytes(with_column("discount,member,note", "1.5,true,a", ",,", "0.25,FALSE,"))
    with using(NewColumns("add", {"discount": "DECIMAL(10,2)", "member": "BOOLEAN"})):
        found = read_day_file(SEP_15)
    assert found.types == {"discount": "DECIMAL(10,2)", "member": "BOOLEAN", "note": "STRING"}
    assert [found.values[order_id][3] for order_id in (2059, 2060, 2061)] == [
        (("discount", Decimal("1.50")), ("member", True), ("note", "a")), (),
        (("discount", Decimal("0.25")), ("member", False))]
    plain = ("C11", Decimal("24.90"), 1789472844000000)
    assert row_hash(2059, (*plain, ())) == row_hash(2059, plain)  # a day without new columns keeps its digest
