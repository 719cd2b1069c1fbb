"""The Spark path of a day's check (shoptoolkit/till/in_spark.py): every refusal of the bad-input
matrix, with the bad line near the end of a big file, gets the Python path's line, and its files that load
give the CSV reader's rows; the common-line pattern takes no line the rules refuse; a valid big day loads,
checks ok and keeps its file's sha256; check_pipeline.py sums it in Spark; a commit of several days
refuses one; a file:// root works.
SPARK_CHECK_BYTES is lowered to 100 kB, so that these files of about 200 kB take the Spark path (read
in four splits, so that a line's number is counted across them) and September's own files (a few
hundred bytes) the Python path."""
import datetime as dt
import hashlib
import io
import json
import random
import re
from contextlib import redirect_stdout
from decimal import Decimal

import pytest

import check_pipeline
from backfill import main as backfill_main
from check_day import check_day, main as check_day_main
from check_month import check_month
from conftest import SEP_15, table_rows
from delta_session import history_frame
from fingerprint import table_state
from load_day import main as load_day_main
from shoptoolkit.engine import expression_mode
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table_schema import COLUMNS
from shoptoolkit.till import day_frames, in_spark as spark_path
from shoptoolkit.till.in_python import read_day_file, read_orders
from shoptoolkit.till.line_rules import CONTROL
from shoptoolkit.truth import day_compare, day_truth
from shoptoolkit.truth.day_record import recorded_checks
from shoptoolkit.truth.spark_compare import table_digest
from test_bad_input import HEADER, LOADED, REJECTED

FILLER = 5000  # valid orders put before a case's own lines, so that its bad line comes near the end


@pytest.fixture
def in_spark(monkeypatch):
    """Files from 100 kB on take the Spark path, and no such file is read line by line in Python."""
    monkeypatch.setattr(spark_path, "SPARK_CHECK_BYTES", 100_000)
    monkeypatch.setattr(day_frames, "MIN_SPLIT", 16_000)  # a file of 200 kB is read in four splits

    def small_only(day, data=None):
        assert day_file(day).stat().st_size < spark_path.SPARK_CHECK_BYTES, "a big file was read in Python"
        return read_day_file(day, data)

    def not_in_python(*_):
        raise AssertionError("an id's line was looked for in Python")
    for module in (spark_path, day_compare, day_truth):
        monkeypatch.setattr(module, "read_day_file", small_only)
    monkeypatch.setattr(spark_path, "line_of_id", not_in_python)


def orders(day, count: int, first_id: int) -> list:
    """count valid lines of orders for day, ids from first_id."""
    seconds = [i * 86399 // count for i in range(count)]
    return [f"{first_id + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},"
            f"{day}T{at // 3600:02d}:{at // 60 % 60:02d}:{at % 60:02d}" for i, at in enumerate(seconds)]


def write_orders(day, first_id: int = 500_000) -> None:
    """A valid day file of FILLER orders."""
    day_file(day).write_text("".join(line + "\n" for line in [HEADER] + orders(day, FILLER, first_id)))


def with_filler(content: bytes, day=SEP_15) -> bytes:
    """content with FILLER orders after its first line (the header): its other lines come at the end."""
    first, _, rest = content.partition(b"\n")
    filler = "".join(line + "\n" for line in orders(day, FILLER, 500_000)).encode()
    return first + b"\n" + filler + rest if rest or content.endswith(b"\n") else content


def moved(line: str) -> str:
    """A refusal of test_bad_input's matrix as it reads once FILLER lines come after the header."""
    return re.sub(r" line (\d+):", lambda found: f" line {int(found[1]) + FILLER * (found[1] != '1')}:", line)


def python_refusal(day) -> str:
    try:
        read_day_file(day)
    except ToolkitError as refusal:
        return str(refusal)
    raise AssertionError("the Python path accepts the file")


@pytest.mark.parametrize("case", REJECTED)
def test_a_refusal_found_in_spark_is_the_python_paths_line(case, september, spark, in_spark, monkeypatch, capsys):
    before = table_state(spark)
    day_file(SEP_15).write_bytes(with_filler(REJECTED[case][0]))
    if not REJECTED[case][0]:  # an empty file: 0 bytes take the Spark path only from 0 on
        monkeypatch.setattr(spark_path, "SPARK_CHECK_BYTES", 0)
    line = moved(REJECTED[case][1])
    if "another day" not in line:  # read_day_file finds every other refusal by itself
        assert python_refusal(SEP_15) == line
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr() == ("", f"error: {line}\n")
    assert not CONTROL.search(line)
    assert table_state(spark) == before


@pytest.mark.parametrize("case", LOADED)
def test_an_odd_but_valid_big_file_loads_the_rows_the_csv_reader_gives_and_their_digest(case, september, spark, in_spark, capsys):
    """test_bad_input's files that load (a byte-order mark, CRLF, columns in another order, blank lines
    at the end), with FILLER orders after their header, in its columns and line ends."""
    first, _, rest = LOADED[case].partition(b"\n")
    names = first.decode("utf-8-sig").strip().split(",")
    filler = [",".join(dict(zip(COLUMNS, line.split(",")))[name] for name in names) for line in orders(SEP_15, FILLER, 500_000)]
    ending = b"\r\n" if first.endswith(b"\r") else b"\n"
    day_file(SEP_15).write_bytes(first + b"\n" + b"".join(line.encode() + ending for line in filler) + rest)
    expected = sorted(tuple(row) for row in read_orders(spark, read_day_file(SEP_15), SEP_15).collect())
    assert load_day_main(["2026-09-16"]) == 0
    assert capsys.readouterr().out == (f"run 2026-09-16 loaded 2026-09-15: {FILLER + 3} rows, "
                                       f"orders_daily has {130 + FILLER}\n")
    assert table_rows(spark, SEP_15) == expected
    # the Spark check's digest of the rows (the lineage's) is the Python check's, and the table's
    lineage = json.loads(history_frame(spark, 1).first().userMetadata)
    assert lineage["rows_digest"] == read_day_file(SEP_15).rows_digest == table_digest(spark, SEP_15)


NOT_COMMON = ["2059,   ,4.50,2026-09-15T10:00:00", "2059,C\x7f1,4.50,2026-09-15T10:00:00", "2059,C1,-4.50,2026-09-15T10:00:00",
              "2059,C1,4.501,2026-09-15T10:00:00", "1234567890123456789,C1,4.50,2026-09-15T10:00:00",
              "2059,C1,4.50,2026-09-15T24:00:00", "2059,C1,4.50,2026-09-16T10:00:00", "2059,C1\r1,4.50,2026-09-15T10:00:00",
              "2059,C1,4.50,2026-09-15T10:00:00,x", "2059,C1,4.50", "2059,C1,4.50,2026-09-15T10:00:00 ",
              "2059,C1,4.50,2026-9-15T10:00:00", "2059,C1,4.50,2026-09-15 10:00:00", "\u0662059,C1,4.50,2026-09-15T10:00:00"]


def test_the_common_line_pattern_takes_no_line_the_rules_refuse(spark, tmp_path, monkeypatch):
    """checked_lines accepts a common line (rules_sql.common_order) with one pattern and checks no further:
    each line here, which that pattern must leave to every rule, is one it does not take."""
    from pyspark.sql import functions as F
    from shoptoolkit.till.rules_sql import common_order
    monkeypatch.chdir(tmp_path)
    day_file(SEP_15).parent.mkdir(parents=True)
    valid = ["2059, C 1 ,4.50,2026-09-15T10:00:00", "2059,C1,4,2026-09-15T23:59:59\r"]
    for line in NOT_COMMON[:-1]:  # the last is a valid order (an Arabic-Indic digit) the pattern leaves to the rules
        day_file(SEP_15).write_text(f"{HEADER}\n{line}\n")
        with pytest.raises(ToolkitError):
            read_day_file(SEP_15)
    lines = spark.createDataFrame([(line,) for line in valid + NOT_COMMON], "text STRING")
    found = [row[0] for row in lines.select(common_order(F.col("text"), list(COLUMNS), F.lit(str(SEP_15)))).collect()]
    assert found == [True] * len(valid) + [False] * len(NOT_COMMON)


def odd_lines(day: str, count: int) -> list:
    """(text, day) pairs for the Java common line: each form's edges, dates of every kind, then orders of
    random widths with one or two random edits (seeded)."""
    edges = ["1,C,0,{d}T00:00:00", "123456789012345678,C,1,{d}T23:59:59", "1234567890123456789,C,1,{d}T23:59:59",
             "1," + " " * 64 + "x,1,{d}T00:00:00", "1," + " " * 65 + "x,1,{d}T00:00:00", "1,   ,1,{d}T00:00:00",
             "1,x" + "y" * 1000 + ",1,{d}T00:00:00", "1,x" + "y" * 1001 + ",1,{d}T00:00:00", "1,x ,1,{d}T00:00:00",
             "1,C,1234567890.12,{d}T01:02:03", "1,C,12345678901,{d}T01:02:03", "1,C,1.5,{d}T01:02:03",
             "1,C,1.,{d}T01:02:03", "1,C,.5,{d}T01:02:03", "1,C,1.123,{d}T01:02:03", "1,C,007.07,{d}T01:02:03",
             "1,C,1,{d}T24:00:00", "1,C,1,{d}T19:60:00", "1,C,1,{d}T19:00:60", "1,C,1,{d}T09:59:59\r",
             "1,C,1,{d}T09:59:59\r\r", "1,C,1,{d}T09:59:59 ", "1,C,1,{d} 09:59:59", "1,C,1,{d}T09:59:59Z",
             "1,C,1,{d}T09:59", "1,C,1,{d}T09:59:59,", "1,C,1,1,{d}T09:59:59", "1,C\r,1,{d}T09:59:59",
             "1,\u00e9,1,{d}T09:59:59", "1,C\x7f,1,{d}T09:59:59", '1,"C",1,{d}T09:59:59', "1,~!#+-/,1,{d}T00:00:00",
             "-1,C,1,{d}T00:00:00", "+1,C,1,{d}T00:00:00", "1,C,-1,{d}T00:00:00", "\u0661,C,1,{d}T00:00:00",
             HEADER, "", "\r", ",,,", *NOT_COMMON]
    lines = [(edge.replace("{d}", day), day) for edge in edges]
    lines += [(f"1,C,1,{other}T12:00:00", other) for other in (
        "2024-02-29", "2025-02-29", "2000-02-29", "1900-02-29", "0001-01-01", "9999-12-31", "2026-13-01",
        "2026-00-10", "2026-04-31", "2026-04-00", "1969-12-31")]
    lines += [(f"1,C,1,{day}T12:00:00", "2026-09-16"), (f"1,C,1,{day}T12:00:00", day[:-1])]
    rng, noise = random.Random(65), "0123456789 ,.-:T\r\"\x7f\u00e9\x00Zx"
    for _ in range(count):
        text = (f"{rng.randrange(10 ** rng.randint(1, 19))},{' ' * rng.choice([0, 0, 1, 64])}C{rng.randrange(99)},"
                f"{rng.randrange(10 ** rng.randint(1, 11))}{rng.choice(['', '.5', '.05', '.'])},{day}T"
                f"{rng.randrange(25):02d}:{rng.randrange(61):02d}:{rng.randrange(61):02d}{rng.choice(['', '', chr(13)])}")
        for _ in range(rng.choice([0, 0, 1, 2])):
            at = rng.randrange(len(text) + 1)
            text = text[:at] + rng.choice(["", rng.choice(noise)]) + text[at + rng.randint(0, 1):]
        lines.append((text, day))
    return lines


def test_the_java_common_line_takes_the_lines_the_pattern_takes_with_the_same_values(spark):
    """rules_sql.java_common_line (CommonLine.java), which the one job uses for the till's own columns: the
    lines it finds common are the ones common_order finds, and its values are line_values' of them."""
    from pyspark.sql import functions as F
    from shoptoolkit.till.rules_sql import common_id, common_order, java_common_line, line_values
    columns = list(COLUMNS)
    found = java_common_line(spark, columns)
    assert java_common_line(spark, ["customer_id", "order_id", "amount", "ordered_at"]) is None  # another order
    lines = (spark.createDataFrame(odd_lines(str(SEP_15), 3000), "text STRING, day STRING")
             .select("*", F.col("text").cast("binary").alias("raw"), F.lit(None).cast("array<string>").alias("fields"),
                     common_order(F.col("text"), columns, F.col("day")).alias("common"))
             .withColumn("found", found))
    pattern = line_values(common_id(F.col("text"), columns), columns)
    java = line_values(F.col("found.order_id"), columns, found=F.col("found"))
    same = F.when(F.col("common"), F.array(*(pattern[name].eqNullSafe(java[name]) for name in COLUMNS)))
    rows = lines.select("text", "day", "common", F.col("found").isNotNull().alias("java"), same.alias("same")).collect()
    assert [(row.text, row.day) for row in rows if row.common != row.java or row.same not in (None, [True] * 4)] == []
    common = [row for row in rows if row.common]
    assert 1000 < len(common) < len(rows) - 1000  # both kinds, many of each
    assert {row.text for row in common} >= {"1,C,1,2026-09-15T09:59:59\r", "1," + " " * 64 + "x,1,2026-09-15T00:00:00"}
    # A common line whose date is no real one has no time, as the cast gives none: the load refuses it.
    at = line_values(F.col("found.order_id"), columns, found=F.col("found"))["ordered_at"]
    assert sorted(row.day for row in lines.where(F.col("common") & at.isNull()).select("day").collect()) == [
        "1900-02-29", "2025-02-29", "2026-00-10", "2026-04-00", "2026-04-31", "2026-13-01"]


def test_a_big_valid_day_loads_checks_ok_and_keeps_its_files_sha256(september, spark, in_spark, capsys):
    others = [row for row in table_rows(spark) if row[4] != SEP_15]
    write_orders(SEP_15)
    assert load_day_main(["2026-09-16"]) == 0
    assert capsys.readouterr().out == (f"run 2026-09-16 loaded 2026-09-15: {FILLER} rows, "
                                       f"orders_daily has {127 + FILLER}\n")
    assert [row for row in table_rows(spark) if row[4] != SEP_15] == others
    lineage = json.loads(history_frame(spark, 1).first().userMetadata)
    file_bytes = day_file(SEP_15).read_bytes()
    assert (lineage["sha256"], lineage["size"], lineage["rows_read"], lineage["lowest"], lineage["highest"]) == (
        hashlib.sha256(file_bytes).hexdigest(), len(file_bytes), FILLER, 500_000, 500_000 + FILLER - 1)
    ok = (True, f"ok 2026-09-15: {FILLER} rows for the file's {FILLER} orders, 0 missing")
    assert recorded_checks([SEP_15]) == {SEP_15: ok}  # the record proves it, and the ids in Spark agree
    assert check_day(spark, "2026-09-16") == ok and check_day(spark, "2026-09-16", deep=True) == ok
    assert check_month(spark, "2026-09") == (
        True, [f"ok 2026-09: all 30 days match their files, {127 + FILLER} orders"])


def test_a_big_day_compared_in_spark_names_the_first_differences(september, spark, in_spark):
    write_orders(SEP_15)
    assert load_day_main(["2026-09-16"]) == 0
    spark.sql("DELETE FROM orders_daily WHERE order_id IN (500003, 500001)")
    assert check_day(spark, "2026-09-16") == (False, f"PROBLEM 2026-09-15: {FILLER - 2} rows for the file's "
                                                     f"{FILLER} orders, 2 missing (500001, 500003)")
    day_file(SEP_15).write_bytes(with_filler(REJECTED["negative amount"][0]))
    assert check_day(spark, "2026-09-16") == (
        False, f"PROBLEM 2026-09-15: bad file ({python_refusal(SEP_15)}), {FILLER - 2} rows")


def test_a_commit_of_big_days_leaves_out_the_refused_ones_with_their_lines(september, spark, in_spark):
    days = [dt.date(2026, 9, 14), SEP_15, dt.date(2026, 9, 16)]
    for number, day in enumerate(days):
        write_orders(day, 600_000 + number * FILLER)
    with open(day_file(SEP_15), "a") as handle:
        handle.write("609999,C07,-4.50,2026-09-15T21:00:00\n")
    with open(day_file(days[2]), "a") as handle:
        handle.write("600007,C07,4.50,2026-09-16T21:00:00\n")  # an id of 14 September's file
    before = [row for row in table_rows(spark) if row[4] in days[1:]]
    with redirect_stdout(io.StringIO()) as printed:
        assert backfill_main(["2026-09-15", "2026-09-17", "--days-per-commit", "all"]) == 1
    lines = printed.getvalue().splitlines()
    assert f"loaded 2026-09-14: {FILLER} rows" in lines[0] and f"; ok 2026-09-14: {FILLER} rows for" in lines[0]
    assert lines[1:3] == [
        f"2/3 run 2026-09-16 failed: {python_refusal(SEP_15)} (left out of commit 1 of 1)",
        f"3/3 run 2026-09-17 failed: landing/orders/2026-09-16.csv line {FILLER + 2}: order_id already stored "
        f"on another day: 600007 (on 2026-09-14) (left out of commit 1 of 1)"]
    assert f"landing/orders/2026-09-15.csv line {FILLER + 2}: amount -4.50 is negative" in lines[1]
    assert [row for row in table_rows(spark) if row[4] in days[1:]] == before


def test_a_file_uri_root_works_on_the_spark_path(september, spark, in_spark, capsys, tmp_path, monkeypatch):
    write_orders(SEP_15)
    monkeypatch.chdir(tmp_path.parent)  # the root comes from --root alone
    root = september.as_uri()
    assert load_day_main(["2026-09-16", "--root", root]) == 0
    assert check_day_main(["2026-09-16", "--root", root]) == 0
    assert capsys.readouterr().out == (
        f"run 2026-09-16 loaded 2026-09-15: {FILLER} rows, orders_daily has {127 + FILLER}\n"
        f"ok 2026-09-15: {FILLER} rows for the file's {FILLER} orders, 0 missing\n")


def test_a_header_line_that_comes_again_in_the_first_split_is_refused_at_its_line(september, spark, in_spark,
                                                                                  capsys):
    """The Spark check tells line 1 from its bytes in the first split; the same bytes again there are a
    line to refuse, found by a query of their own."""
    lines = [HEADER] + orders(SEP_15, 3, 500_000) + [HEADER] + orders(SEP_15, FILLER, 600_000)
    day_file(SEP_15).write_text("".join(line + "\n" for line in lines))
    line = python_refusal(SEP_15)
    assert " line 5: order_id 'order_id' is not a whole number" in line
    assert load_day_main(["2026-09-16"]) == 1
    assert capsys.readouterr() == ("", f"error: {line}\n")


def test_the_pipelines_check_counts_and_sums_a_big_file_inside_spark(september, spark, in_spark, monkeypatch):
    """check_pipeline.py compares each day's orders and amount with the view: a big file's are Spark's."""
    def not_in_python(found):
        raise AssertionError(f"{found.path} was summed in Python")
    monkeypatch.setattr(check_pipeline, "file_amount", not_in_python)
    write_orders(SEP_15)
    amount = sum(Decimal(line.split(",")[2]) for line in orders(SEP_15, FILLER, 500_000))
    assert check_pipeline.file_totals(spark, SEP_15) == ((FILLER, amount), "")
    day_file(SEP_15).write_bytes(with_filler(REJECTED["negative amount"][0]))
    assert check_pipeline.file_totals(spark, SEP_15) == (None, f"bad file ({python_refusal(SEP_15)})")


def test_a_big_run_shuffles_in_two_partitions_a_core_and_a_small_one_in_two(september, spark, monkeypatch):
    seen = []

    @expression_mode.small_day_queries
    def run(spark, run_date):
        seen.append(spark.conf.get("spark.sql.shuffle.partitions"))
    run(spark, "2026-09-16")
    monkeypatch.setattr(expression_mode, "COMPILED_FROM", 1)  # September's few hundred bytes count as big
    run(spark, "2026-09-16")
    assert seen == ["2", str(2 * spark.sparkContext.defaultParallelism)]
    assert spark.conf.get("spark.sql.shuffle.partitions") == "2"
