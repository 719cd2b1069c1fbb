"""A big day loaded in one Spark job whose commit waits for the day's facts: the write's own tasks read the
file's lines, check each by the Spark check's rules (file_check/rules_sql.py) and fail the job at a refused
one; then the files it wrote, in no version yet, give the day's rows, ids' range, digest and whether an id
comes twice, and are committed in one Delta commit, or deleted. No version ever holds a refused file.

    from shoptoolkit.held_write import one_job_fits, held_day
    held = held_day(spark, day)     # a HeldDay, or None: the file is refused (load_day's check words it)
    held.commit(metadata)           # or held.abort(): the written files deleted

The file is read once, by the job; Python streams it beside the job for its sha256 (in_python.fingerprint).
A refused file costs its failed job, and then load_day's check of the file, which words the refusal as
the two-pass load does. Classic sessions only: a Spark Connect client has no JVM to hold a commit in.
"""
import csv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import unquote

from shoptoolkit.day_frames import split_size, splits_of
from shoptoolkit.errors import ToolkitError
from shoptoolkit.file_check.in_python import DayFile, decoded_lines, fingerprint, numbered_rows, read_header
from shoptoolkit.file_check.in_spark import spark_sized
from shoptoolkit.file_check.line_scan import checked_lines
from shoptoolkit.file_check.rules_sql import line_values
from shoptoolkit.project_paths import day_file, table_path
from shoptoolkit.row_values import spark_digest, spark_row_hash
from shoptoolkit.table import table_exists
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN

REFUSED = "shop-toolkit: the day's file has a refused line"  # the job's error when it meets one


@dataclass
class HeldDay:
    """A day written and not committed: its file's DayFile (from what the job wrote), its rows' ids, the
    JVM's HeldWrite (shoptoolkit/jvm/java/shoptoolkit/HeldWrite.java)."""
    found: DayFile
    orders: object
    write: object

    def commit(self, metadata: str) -> int:
        """Commit the written files in one Delta commit with metadata; its version."""
        return java_call(lambda: self.write.commit(metadata))

    def abort(self) -> None:
        java_call(self.write.abort)


def held_write_class(spark):
    """The JVM's HeldWrite, or None: a Spark Connect client, or a session without the toolkit's JAR."""
    if not hasattr(spark, "_jsparkSession"):
        return None
    from py4j.java_gateway import JavaClass
    found = spark._jvm.shoptoolkit.HeldWrite
    return found if isinstance(found, JavaClass) else None


def one_job_fits(spark, day) -> bool:
    """Whether day loads in one job: a big file (checked in Spark), a table to write to, a classic session."""
    return spark_sized([day]) and held_write_class(spark) is not None and table_exists(spark)


def java_call(call, keep=lambda error: False):
    """call(), a JVM error raised as PySpark raises it (a write conflict then reads as retry.py expects),
    but one that keep() holds is raised as it is."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors.exceptions.captured import convert_exception
    try:
        return call()
    except Py4JJavaError as error:
        if keep(error):
            raise
        raise convert_exception(error.java_exception) from None


def file_columns(path) -> list:
    """The columns a file's header names, or None when Python's check would refuse its header."""
    with path.open("rb") as raw:
        line = raw.readline()
    try:
        return read_header(numbered_rows(csv.reader(decoded_lines([line], path)), path), path)
    except ToolkitError:
        return None


def day_rows(spark, day, columns: list):
    """The file's orders as the table holds them, from a plan that fails its job at the first line the
    Spark check refuses, at a line after the first that repeats the header, and at an order it cannot
    read as the table's types (which the two-pass load may still read)."""
    from pyspark.sql import functions as F
    with day_file(day).open("rb") as raw:
        header = raw.readline().rstrip(b"\n").removeprefix(b"\xef\xbb\xbf")
    lines = checked_lines(spark, [day_file(day)], columns, header)
    values = line_values(F.col("order_id"), columns)
    line_one = F.col("is_header") & (F.col("block") == 0) & (F.col("at") == 0)
    unread = F.col("order_id").isNotNull() & (values["customer_id"].isNull() | values["amount"].isNull()
                                             | values["ordered_at"].isNull())
    bad = ~line_one & (F.col("refused") | F.col("opens") | F.col("is_header") | unread)
    return (lines.where(F.when(bad, F.raise_error(F.lit(REFUSED))).otherwise(F.col("order_id").isNotNull()))
            .select(*(values[name].alias(name) for name in COLUMNS), F.lit(day).alias(PARTITION_COLUMN)))


def observed(rows):
    """(rows, its Observation): the count, lowest and highest id and the digest's two sums of the rows the
    write's own tasks write (row_values.spark_hash_sum's halves), there when the job has run."""
    from pyspark.sql import Observation, functions as F
    facts = Observation("day_facts")
    row_hash = spark_row_hash(F.col("order_id"), F.col("customer_id"), F.col("amount"), F.unix_micros("ordered_at"))
    return rows.observe(facts, F.count("*").alias("rows"), F.min("order_id").alias("lowest"),
                        F.max("order_id").alias("highest"), F.sum(F.shiftright(row_hash, 32)).alias("high"),
                        F.sum(row_hash.bitwiseAND(0xFFFFFFFF)).alias("low")), facts


def distinct_ids(spark, paths: list) -> int:
    """How many distinct order ids the written files at paths hold: their ids only, counted in bitmaps by
    bucket of ids (as line_scan.per_file counts a file's), no shuffle of the ids themselves."""
    from pyspark.sql import functions as F
    buckets = (spark.read.parquet(*paths).groupBy(F.bitmap_bucket_number("order_id"))
               .agg(F.bitmap_count(F.bitmap_construct_agg(F.bitmap_bit_position("order_id"))).alias("ids")))
    return buckets.agg(F.sum("ids")).first()[0] or 0


def held_day(spark, day):
    """day's file written in one job and held (HeldDay), or None when the job or its ids refuse it."""
    path, jvm_write = day_file(day), held_write_class(spark)
    columns = file_columns(path)
    if columns is None:
        return None
    with ThreadPoolExecutor(1) as beside:
        streamed = beside.submit(fingerprint, path)
        rows, facts = observed(day_rows(spark, day, columns))
        with splits_of(spark, split_size(spark, path.stat().st_size)):
            write = java_write(lambda: jvm_write.write(spark._jsparkSession, str(table_path()), rows._jdf,
                                                       f"{PARTITION_COLUMN} = DATE'{day}'"))
        size, sha256, _ = streamed.result()
    if write is None:
        return None
    paths = [str(table_path() / unquote(added)) for added in write.added()]
    found = facts.get
    digest = spark_digest((found["high"] or 0) * (1 << 32) + (found["low"] or 0))
    held = HeldDay(DayFile(path, columns, None, size, sha256, found["rows"], found["lowest"], found["highest"],
                           None, digest), spark.read.parquet(*paths).select("order_id"), write)
    if distinct_ids(spark, paths) < found["rows"]:
        held.abort()
        return None
    return held


def java_write(call):
    """call()'s HeldWrite, or None when its job met a refused line (REFUSED); other errors as java_call's."""
    from py4j.protocol import Py4JJavaError
    try:
        return java_call(call, keep=lambda error: refused_in(error.java_exception))
    except Py4JJavaError:
        return None


def refused_in(error) -> bool:
    """Whether a JVM error is the job's REFUSED, or is caused by it (Spark wraps a task's error)."""
    while error is not None:
        if REFUSED in str(error.getMessage()):
            return True
        error = error.getCause()
    return False
