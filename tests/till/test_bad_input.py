"""The bad-input matrix for a day's file (docs/bad_input.md): each case loads, or is refused with one
line naming the file, the line and the problem, exit 1, and the table exactly as it was."""

import pytest

from conftest import SEP_15, run_script, table_rows
from fingerprint import table_state
from check_day import check_day
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.till.line_rules import CONTROL
from history import table_history
from load_day import main as load_day_main

FILE = "landing/orders/2026-09-15.csv"
HEADER = "order_id,customer_id,amount,ordered_at"
ROWS = ["2059,C11,24.90,2026-09-15T11:47:24",
        "2060,C05,15.40,2026-09-15T15:01:58",
        "2061,C10,19.99,2026-09-15T15:32:30"]
EXPECTED = f"(expected {HEADER})"


def text(*lines) -> bytes:
    return "".join(line + "\n" for line in lines).encode()


def reordered() -> bytes:
    """The same orders with the columns in another order: ordered_at,amount,order_id,customer_id."""
    moved = [",".join([at, amount, order_id, customer]) for order_id, customer, amount, at in
             (row.split(",") for row in [HEADER] + ROWS)]
    return text(*moved)


REJECTED = {
    "empty file (0 bytes)": (b"", f"{FILE}: empty file (0 bytes), expected the header {HEADER} at least"),
    "extra column": (text(HEADER + ",note", *(row + ",x" for row in ROWS)),
                     f"{FILE} line 1: unexpected column note {EXPECTED}; --on-new-column add or rescue "
                     f"(or SHOP_ON_NEW_COLUMN) would load it"),
    "missing column": (text("order_id,amount,ordered_at", "2059,24.90,2026-09-15T11:47:24"),
                       f"{FILE} line 1: missing column customer_id {EXPECTED}"),
    "no header": (text(*ROWS), f"{FILE} line 1: no header: expected {HEADER}"),
    "amount not a number": (text(HEADER, ROWS[0], "2060,C05,lots,2026-09-15T15:01:58", ROWS[2]),
                            f"{FILE} line 3: amount 'lots' is not a number like 19.99"),
    "negative amount": (text(HEADER, ROWS[0], ROWS[1], "2061,C10,-19.99,2026-09-15T15:32:30"),
                        f"{FILE} line 4: amount -19.99 is negative"),
    "order_id not an integer": (text(HEADER, "2059.5,C11,24.90,2026-09-15T11:47:24", *ROWS[1:]),
                                f"{FILE} line 2: order_id '2059.5' is not a whole number"),
    "same order_id twice in the file": (text(HEADER, *ROWS, "2060,C07,4.50,2026-09-15T21:00:00"),
                                        f"{FILE} line 5: order_id 2060 appears twice in the file"),
    "order_id already stored on another day": (
        text(HEADER, *ROWS, "2001,C07,4.50,2026-09-15T21:00:00"),
        f"{FILE} line 5: order_id already stored on another day: 2001 (on 2026-09-01)"),
    "ordered_at not a timestamp": (text(HEADER, ROWS[0], "2060,C05,15.40,15:01", ROWS[2]),
                                   f"{FILE} line 3: ordered_at '15:01' is not a timestamp "
                                   f"like 2026-09-15T20:30:00"),
    "ordered_at outside the file's day": (text(HEADER, *ROWS, "2062,C07,4.50,2026-09-16T00:10:00"),
                                          f"{FILE} line 5: ordered_at 2026-09-16T00:10:00 is not on 2026-09-15"),
    "bytes not UTF-8": (text(HEADER, ROWS[0]) + "2060,Cé05,15.40,2026-09-15T15:01:58\n".encode("latin-1"),
                        f"{FILE} line 3: bytes that are not UTF-8"),
    "a line of empty fields": (text(HEADER, *ROWS, ",,,"), f"{FILE} line 5: order_id '' is not a whole number"),
    "too few fields on a line": (text(HEADER, *ROWS, "2062,C07,4.50"), f"{FILE} line 5: 3 fields, expected 4"),
    # Control characters: refused, and the line shows them escaped, never as the raw byte.
    "ESC in a field (a terminal escape)": (
        text(HEADER, "2059,C11\x1b[2J,24.90,2026-09-15T11:47:24", *ROWS[1:]),
        f"{FILE} line 2: customer_id 'C11\\x1b[2J' holds a control character ('\\x1b')"),
    "BEL in a field": (text(HEADER, ROWS[0], "2060,C05,15.40\x07,2026-09-15T15:01:58", ROWS[2]),
                       f"{FILE} line 3: amount '15.40\\x07' holds a control character ('\\x07')"),
    "NUL in a field": (text(HEADER, *ROWS[:2], "2061,C10\x00,19.99,2026-09-15T15:32:30"),
                       f"{FILE} line 4: customer_id 'C10\\x00' holds a control character ('\\x00')"),
    "another C0 character (SOH)": (text(HEADER, *ROWS[:2], "2061,C10,19.99,2026-09-15T15:32:30\x01"),
                                   f"{FILE} line 4: ordered_at '2026-09-15T15:32:30\\x01' holds a control "
                                   f"character ('\\x01')"),
    "a C1 character (CSI)": (text(HEADER, "2059,C\x9b2J11,24.90,2026-09-15T11:47:24", *ROWS[1:]),
                             f"{FILE} line 2: customer_id 'C\\x9b2J11' holds a control character ('\\x9b')"),
    "tab in a field": (text(HEADER, "2059,C\t11,24.90,2026-09-15T11:47:24", *ROWS[1:]),
                       f"{FILE} line 2: customer_id 'C\\t11' holds a control character ('\\t')"),
    "a line end inside a quoted field": (text(HEADER, '2059,"C1\n1",24.90,2026-09-15T11:47:24', *ROWS[1:]),
                                         f"{FILE} line 3: customer_id 'C1\\n1' holds a control character ('\\n')"),
    "a lone CR inside a line": (text(HEADER, "2059,C1\r1,24.90,2026-09-15T11:47:24", *ROWS[1:]),
                                f"{FILE} line 2: not a CSV line (new-line character seen in unquoted field)"),
    "a control character in the header": (
        text("order_id,customer_id\x1b,amount,ordered_at", *ROWS),
        f"{FILE} line 1: column name 'customer_id\\x1b' holds a control character ('\\x1b')"),
}

LOADED = {
    "header with columns in another order": reordered(),
    "Windows line endings": text(HEADER, *ROWS).replace(b"\n", b"\r\n"),
    "trailing blank lines": text(HEADER, *ROWS, "", "", ""),
    "UTF-8 byte-order mark": b"\xef\xbb\xbf" + text(HEADER, *ROWS),
}


@pytest.mark.parametrize("case", REJECTED)
def test_bad_file_is_refused_in_one_line_and_the_table_is_untouched(case, september, spark, capsys):
    content, line = REJECTED[case]
    before = table_state(spark)
    day_file(SEP_15).write_bytes(content)
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr() == ("", f"error: {line}\n")
    assert not CONTROL.search(line)  # nothing in it can move the cursor or change the terminal
    assert table_state(spark) == before


@pytest.mark.parametrize("case", LOADED)
def test_odd_but_valid_file_loads_the_same_orders(case, september, spark, capsys):
    before = table_rows(spark)
    day_file(SEP_15).write_bytes(LOADED[case])
    assert load_day_main(["2026-09-16"]) == 0
    assert capsys.readouterr() == ("run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 130\n", "")
    newest = table_history(spark, 1)[0]
    assert (newest["operation"], newest["predicate"], newest["rows_written"]) == (
        "WRITE", "order_date = DATE'2026-09-15'", 3)
    assert table_rows(spark) == before
    assert check_day(spark, "2026-09-16") == (True, "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing")


def test_header_only_is_a_day_with_no_orders(september, spark, capsys):
    others = [row for row in table_rows(spark) if row[4] != SEP_15]
    day_file(SEP_15).write_bytes(text(HEADER))
    assert load_day_main(["2026-09-16"]) == 0
    assert capsys.readouterr().out == "run 2026-09-16 loaded 2026-09-15: 0 rows, orders_daily has 127\n"
    assert table_rows(spark) == others
    assert check_day(spark, "2026-09-16") == (True, "ok 2026-09-15: 0 rows for the file's 0 orders, 0 missing")


def test_refusal_found_by_spark_has_no_java_trace(september, spark):
    """The clash with another day is found by a Spark join: the subprocess's stderr is still one line."""
    before = table_state(spark)
    day_file(SEP_15).write_bytes(REJECTED["order_id already stored on another day"][0])
    done = run_script("load_day.py", "2026-09-16", cwd=september)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"error: {REJECTED['order_id already stored on another day'][1]}\n"
    assert table_state(spark) == before


def test_clash_check_of_a_big_file_joins_instead_of_naming_ids(september, spark, monkeypatch, capsys):
    """Above IDS_IN_QUERY ids the clash check joins the file's rows: the same refusal, nothing written."""
    import load_day
    monkeypatch.setattr(load_day, "IDS_IN_QUERY", 0)
    before = table_state(spark)
    day_file(SEP_15).write_bytes(REJECTED["order_id already stored on another day"][0])
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr().err == f"error: {REJECTED['order_id already stored on another day'][1]}\n"
    assert table_state(spark) == before


# Values each rule of line_rules.RULES is asked about: the edges written down, then generated ones from
# an alphabet of the characters the rules turn on (ASCII and other decimal digits, signs, separators, a
# full-width space), seeded so that every run asks the same.
EDGES = ["", " ", "\u3000", "0", "123", "1" * 18, "1" * 19, "-1", "-0.5", "\u0661\u0662", "12a", " 12", "1.0",
         "19.99", "1.999", "1e3", "00.10", "10000000000", "C01", " a ", "2026-09-15T20:30:00",
         "2026-09-15T24:00:00", "2026-09-16T10:00:00", "2026-02-30T10:00:00", "2026-09-15 20:30:00",
         "2026-09-15T20:30", "\uff12026-09-15T20:30:00", "2026-09-15T20:30:00Z", "2026-09-15T2\u0660:30:00",
         "2026-09-01", "2026-02-30", "2026-9-01", "true", "FaLsE", "yes", "123456789", "1234567890"]
ALPHABET = "0123456789-.:T a\u0663\u3000\uff15"


def asked_values(count: int = 400) -> list:
    import random
    chance = random.Random(20261206)
    day = "2026-09-15T"
    made = ["".join(chance.choice(ALPHABET) for _ in range(chance.randint(0, 22))) for _ in range(count)]
    return EDGES + made + [day + "".join(chance.choice("0123456789:") for _ in range(8)) for _ in range(count)]


def test_each_rule_passes_the_same_values_in_python_and_inside_spark(spark):
    """One table of rules makes both paths (RULES, and a new column's rule of its declared type): for every
    rule, the Python test and the Spark expression agree
    on every value asked (the refusal's words are then the Python path's, on either path)."""
    import datetime as dt
    from pyspark.sql import functions as F
    from shoptoolkit.till.line_rules import PASSES, rules_for
    from shoptoolkit.till.rules_sql import SPARK_PASSES
    RULES = rules_for({"d": "DECIMAL(10,2)", "i": "INT", "b": "BOOLEAN", "t": "DATE"})  # and new columns' (new_columns.py)
    day, values = dt.date(2026, 9, 15), asked_values()
    frame = spark.createDataFrame([(value,) for value in values], "value STRING")
    answers = frame.select("value", *[SPARK_PASSES[rule.kind](F.col("value"), rule, F.lit(str(day))).alias(f"r{place}")
                                      for place, rule in enumerate(RULES)]).collect()
    differing = [(rule.column, rule.kind, row.value) for row in answers for place, rule in enumerate(RULES)
                 if bool(row[f"r{place}"]) != PASSES[rule.kind](row.value, rule, day)]
    assert differing == []
    assert {rule.kind for rule in RULES} == set(PASSES) == set(SPARK_PASSES)
