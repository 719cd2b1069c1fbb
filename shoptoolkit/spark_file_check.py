"""Big day files checked inside Spark, by day_file_check's rules and with its words: the Spark path.

    from shoptoolkit.spark_file_check import checked_day, checked_in_spark
    found = checked_day(spark, "2026-09-15")    # a DayFile, or its file's refusal raised
    checked_in_spark(spark, days)               # {day: Checked} for the files of a commit, in one query

From SPARK_CHECK_BYTES of files on (a day's, or a commit's together) one Spark query reads the files
(day_frames.day_files: a task a file, executors reading), flags every line with csv_sql's expressions
and brings back a row a file: its size, sha256, header line, how many orders and their lowest and
highest id, whether an id is there twice, the first refused line (its number and bytes) and the first
line that opens a quoted field it does not close. Python then checks the header and that one line with
day_file_check's own functions, which word the refusal as the Python path does. No id and no other line
comes back. A refused file may cost a second query over it: for its first duplicate id (the second
line that holds it), for the lines of a record that runs over several lines, or for the line of an id
stored on another day.
"""
import csv
import datetime as dt
import hashlib
import math
from dataclasses import dataclass

from shoptoolkit.csv_sql import header_names, line_kind, order_id, places, refused_order
from shoptoolkit.day_file_check import (DayFile, checked_order, decoded_lines, line_of_id, numbered_rows,
                                        read_day_file, read_header, twice)
from shoptoolkit.day_frames import day_files, file_lines
from shoptoolkit.errors import ToolkitError
from shoptoolkit.project_paths import day_file

# From this many bytes of files (a day's, or a commit's together) the check runs in Spark; below it, in
# Python. Off for now (issue 33 is open): one task reads a file whole, and in the suite's session a day of
# a million orders (39 MB) took the driver's 1 GiB heap; the crossover is not measured yet. The tests of
# this path lower it (tests/test_spark_check.py).
SPARK_CHECK_BYTES = 2 ** 62
MORE_LINES = 1000  # lines fetched at a time for a record that runs over several lines


@dataclass
class Checked:
    """A file as the Spark check found it: its DayFile when it passes, else the refusal; its sha256."""
    found: DayFile = None
    refusal: ToolkitError = None
    sha256: str = ""


class MoreLines(Exception):
    """The record being read goes on past the lines at hand."""


def spark_sized(days) -> bool:
    """Whether the files of days (those that exist) are big enough together to be checked in Spark."""
    paths = [day_file(day) for day in days]
    return sum(path.stat().st_size for path in paths if path.exists()) >= SPARK_CHECK_BYTES


def checked_day(spark, day) -> DayFile:
    """day's file checked in Python, or in Spark from SPARK_CHECK_BYTES on; its refusal is raised."""
    if not spark_sized([day]):
        return read_day_file(day)
    checked = checked_in_spark(spark, [day])[day]
    if checked.refusal:
        raise checked.refusal
    return checked.found


def checked_lines(spark, days):
    """file_lines of the days' files, each with refused (check_row, csv or UTF-8 refuses the line), opens
    (a quoted field goes on past its end) and order_id (an order the line check accepts)."""
    from pyspark.sql import functions as F
    files = day_files(spark, [day_file(day) for day in days])
    files = files.select("*", header_names(F.col("header")).alias("names"))
    files = files.select("*", *(place.alias(f"place_{name}") for name, place in places(F.col("names")).items()))
    at = {name: F.col(f"place_{name}") for name in places(F.col("names"))}
    kind, fields, controls = line_kind(F.col("text"), (F.col("line") == F.col("lines")) & ~F.col("ends"))
    lines = (file_lines(files).select("*", kind.alias("kind"), fields.alias("fields"), controls.alias("controls"),
                                      F.is_valid_utf8("text").alias("utf8"))
             .select("*", refused_order(F.col("fields"), F.col("controls"), at, F.col("day")).alias("bad_order")))
    data, kind = (F.col("line") > 1) & F.col("utf8"), F.col("kind")
    refused = (F.col("line") > 1) & (~F.col("utf8") | (kind == "error") | ((kind == "order") & F.col("bad_order")))
    return lines.select("day", "size", "sha256", "ends", "lines", "header", "line", "raw", refused.alias("refused"),
                        (data & (kind == "open")).alias("opens"),
                        F.when(data & (kind == "order") & ~F.col("bad_order"), order_id(F.col("fields"), at))
                        .alias("order_id"))


def checked_in_spark(spark, days) -> dict:
    """{day: Checked} for the files of days (each must exist), in one Spark query."""
    from pyspark.sql import functions as F
    rows = (checked_lines(spark, days)
            .groupBy("day", "size", "sha256", "ends", "lines", "header")
            .agg(F.count("order_id").alias("orders"), F.min("order_id").alias("lowest"),
                 F.max("order_id").alias("highest"), F.size(F.collect_set("order_id")).alias("distinct"),
                 F.min(F.when(F.col("refused"), F.struct("line", "raw"))).alias("refused_at"),
                 F.min(F.when(F.col("opens"), F.col("line"))).alias("opens_at"))
            .collect())
    checked = {dt.date.fromisoformat(row.day): file_verdict(spark, row) for row in rows}
    return {day: checked.get(day) or empty_file(day) for day in days}


def empty_file(day) -> Checked:
    """Spark reads no row of an empty (0-byte) file: its refusal, as read_header words it."""
    try:
        read_header(iter([]), day_file(day))
    except ToolkitError as refusal:
        return Checked(None, refusal, hashlib.sha256(b"").hexdigest())


def file_verdict(spark, row) -> Checked:
    """The Checked of one file from its row of counts: its header and first refused line checked again in
    Python, which words the refusal; were the two checks to disagree, the Python check decides."""
    day = dt.date.fromisoformat(row.day)
    try:
        found = DayFile(day_file(day), [], None, row.size, row.sha256, row.orders, row.lowest, row.highest)
        record = first_record(spark, row, found.path, 1, [row.header] if row.header is not None else [])
        found.columns = read_header(iter([record] if record else []), found.path)
        if refuse_first(spark, row, found, day):
            return Checked(read_day_file(day), None, row.sha256)
    except ToolkitError as refusal:
        return Checked(None, refusal, row.sha256)
    return Checked(found, None, row.sha256)


def refuse_first(spark, row, found: DayFile, day) -> bool:
    """Raise the refusal of the file's first problem, worded by day_file_check; True when the line the
    Spark check refused passes the Python check (they disagree), False when there is no problem."""
    refused_at = row.refused_at.line if row.refused_at else math.inf
    opens_at = row.opens_at or math.inf
    twice_at, twice_id = first_twice(spark, day) if row.distinct < row.orders else (math.inf, None)
    if twice_at < min(refused_at, opens_at):  # a refused line at the same place is refused first
        raise twice(found.path, twice_at, twice_id)
    first = min(refused_at, opens_at)
    if first == math.inf:
        return False
    raws = [row.refused_at.raw] if first == refused_at else lines_from(spark, day, first, MORE_LINES)
    line, record = first_record(spark, row, found.path, first, raws)
    checked_order(record, found, day, line, set())
    return True


def first_record(spark, row, path, start: int, raws: list):
    """(line, fields) of the csv record that starts at line start (raws: that line's bytes and perhaps the
    next ones'), as read_day_file reads it, or None at the file's end; more lines are fetched from Spark
    while the record goes on. Not UTF-8, or a line csv refuses, is raised as read_day_file raises it."""
    while True:
        try:
            rows = numbered_rows(csv.reader(decoded_lines(at_hand(raws, start, row), path, first=start)),
                                 path, start - 1)
            return next(rows, None)
        except MoreLines:
            raws = lines_from(spark, dt.date.fromisoformat(row.day), start, 8 * len(raws) + MORE_LINES)


def at_hand(raws: list, start: int, row):
    """The lines raws as the file holds them (with their LF, but for a last line without one); MoreLines
    when csv asks for a line past them that the file has."""
    for number, raw in enumerate(raws, start=start):
        yield bytes(raw) + (b"\n" if number < row.lines or row.ends else b"")
    if start + len(raws) <= row.lines:
        raise MoreLines


def lines_from(spark, day, start: int, count: int) -> list:
    """The bytes of count lines of day's file from line start on (a second query, for a refused file)."""
    from pyspark.sql import functions as F
    lines = file_lines(day_files(spark, [day_file(day)]))
    return [row.raw for row in lines.where(F.col("line").between(start, start + count - 1))
            .orderBy("line").select("raw").collect()]


def first_twice(spark, day) -> tuple:
    """(line, order id) of the first line whose id an earlier line of day's file holds (a second query)."""
    from pyspark.sql import Window, functions as F
    orders = checked_lines(spark, [day]).where(F.col("order_id").isNotNull())
    nth = F.row_number().over(Window.partitionBy("order_id").orderBy("line"))
    first = (orders.select("line", "order_id", nth.alias("nth")).where("nth = 2")
             .agg(F.min(F.struct("line", "order_id")).alias("first")).first().first)
    return (first.line, first.order_id) if first else (math.inf, None)


def line_of(spark, found: DayFile, order_id: int) -> int:
    """The line of a checked file that holds order_id: line_of_id for a file checked in Python, a
    Spark query for one checked in Spark (its ids never came to Python)."""
    if found.order_ids is not None:
        return line_of_id(found, order_id)
    from pyspark.sql import functions as F
    day = dt.date.fromisoformat(found.path.stem)
    return (checked_lines(spark, [day]).where(F.col("order_id") == order_id)
            .agg(F.min("line")).first()[0] or 0)
