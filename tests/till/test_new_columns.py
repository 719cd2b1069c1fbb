"""When the till's file gains a column (docs/new_columns.md): refused by default, its line naming the
setting; `add` adds it to the table in the day's own commit, `rescue` keeps it per row in _rescued_data;
a declared type is checked line by line on both paths; the checks compare it where a file has it."""
import json

import pytest

from check_day import check_day
from check_month import check_month
from conftest import SEP_15, table_rows
from fingerprint import table_state
from history import table_history
from load_day import load_day, main as load_day_main
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table import orders_table
from shoptoolkit.table.delta_table import history_frame

FILE = "landing/orders/2026-09-15.csv"
HEADER = "order_id,customer_id,amount,ordered_at"
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
    assert check_day(spark, "2026-09-16") == (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
    assert check_day(spark, "2026-09-16", deep=True) == (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")
