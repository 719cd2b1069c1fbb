"""Big day files checked inside the write's own plan, by the Spark check's rules (rules_sql.py): a line the
check refuses fails the write's job (raise_error of REFUSED), so its transaction commits nothing.

    from shoptoolkit.till.in_write import REFUSED, days_rows, file_header
    rows, headers = days_rows(spark, {day: file_header(day_file(day))}, [[day]])   # rows to write, and
    headers.get["lines"]          # once its job ran: the header lines met, one a file unless one repeats

The job only says that some line is refused; which one, and why, is for the check (in_spark.py), which
reads the file again: a refused file pays for a second pass, in the same words as the two-pass load.
"""
import csv
from functools import reduce

from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, PARTITION_TYPE
from shoptoolkit.till.day_frames import by_name, in_tasks
from shoptoolkit.till.in_python import decoded_lines, new_columns, numbered_rows
from shoptoolkit.till.line_rules import column_types, read_header
from shoptoolkit.till.line_scan import checked_lines
from shoptoolkit.till.new_columns import current
from shoptoolkit.till.rules_sql import java_common_line, line_values

REFUSED = "shop-toolkit: the day's file has a refused line"  # the job's error when it meets one


def file_header(path) -> tuple:
    """(the columns a file's header names, line 1's bytes as Spark's lines show it), or None when Python's
    check would refuse its header (a new column under fail among its reasons)."""
    with path.open("rb") as raw:
        line = raw.readline()
    try:
        columns = read_header(numbered_rows(csv.reader(decoded_lines([line], path)), path), path)
    except ToolkitError:
        return None
    return columns, line.rstrip(b"\n").removeprefix(b"\xef\xbb\xbf")


def adds_columns(files: dict) -> bool:
    """Whether a load of files ({day: (columns, line 1)}) adds a column to the table under the setting in
    force (till/new_columns.py): its write then takes mergeSchema, and its commit adds the column."""
    return any(current().added(column_types(columns)) for columns, _ in files.values())


def file_rows(spark, paths: list, columns: list, header: bytes):
    """The orders of files whose line 1 is header (naming columns) as the table holds them, with is_header
    (a line of a file's first split that is the header's bytes, to be counted), from a plan that fails its
    job at the first line the Spark check refuses and at an order it cannot read as the table's types
    (which the two-pass load may still read); its new columns (the table's, or added by the load) as
    read_orders takes them. The till's own columns in its order: a common line is found and typed in one
    pass (rules_sql.java_common_line)."""
    from pyspark.sql import functions as F
    found, types = java_common_line(spark, columns), column_types(columns)
    lines = checked_lines(spark, paths, columns, header, found=found)
    values = line_values(F.col("order_id"), columns, types, F.col("found") if found is not None else None)
    unread = F.col("order_id").isNotNull() & (values["customer_id"].isNull() | values["amount"].isNull()
                                             | values["ordered_at"].isNull())
    bad = F.col("refused") | F.col("opens") | unread
    kept = F.when(bad, F.raise_error(F.lit(REFUSED))).otherwise(F.col("order_id").isNotNull() | F.col("is_header"))
    return lines.where(kept).select(*(values[name].alias(name) for name in COLUMNS), *new_columns(types, values.get),
                                    F.col("day").cast(PARTITION_TYPE).alias(PARTITION_COLUMN), "is_header")


def days_rows(spark, files: dict, groups: list):
    """(the orders of files ({day: (columns, line 1)}) a run of groups a task, the Observation of
    their header lines: one a file when no file repeats its header in its first split)."""
    from pyspark.sql import Observation, functions as F
    frames = []
    for group in groups:
        by_header = {}
        for day in group:
            columns, header = files[day]
            by_header.setdefault((tuple(columns), header), []).append(str(day_file(day)))
        frames.append(reduce(by_name, [
            file_rows(spark, paths, list(columns), header) for (columns, header), paths in by_header.items()]))
    headers = Observation("headers")
    rows = in_tasks(frames, groups).observe(headers, F.count_if("is_header").alias("lines"))
    return rows.where(~F.col("is_header")).drop("is_header"), headers


def refused_in(error) -> bool:
    """Whether a JVM error is the job's REFUSED, or is caused by it (Spark wraps a task's error)."""
    while error is not None:
        if REFUSED in str(error.getMessage()):
            return True
        error = error.getCause()
    return False
