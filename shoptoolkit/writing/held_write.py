"""Big days loaded in one Spark job whose commit waits for their facts: the write's own tasks read the
files' lines, check each by the Spark check's rules (till/in_write.py), fail the job at a refused one,
and count each day's rows, ids' range and digest and every id as they write (an observed aggregate,
engine/java/shoptoolkit/DayFacts.java); then the written files, in no version yet, are committed in one Delta
commit with that lineage, or deleted when an id came twice. No version ever holds a refused file.

    from shoptoolkit.writing.held_write import one_job_fits, held_days
    with held_days(spark, days, predicate) as held:  # None: a file is refused (the caller's check words it)
        held.found[day]                              # each day's DayFile, from what the job wrote
        held.commit(metadata)                        # else the written files are deleted on the way out

Consecutive days are read by one task and written as one file (day_frames.day_groups), a big day in its
splits. Python streams the files beside the job for their sha256 (in_python.fingerprint). A refused file
costs its failed job, and then the caller's check of the files, which words the refusal as the two-pass
load does. Classic sessions only: a Spark Connect client has no JVM to hold a commit in. A first load holds
first_load's lock from its job to its commit.
"""
import datetime as dt
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from urllib.parse import unquote

from shoptoolkit.row_values import spark_digest, spark_orders_hash
from shoptoolkit.storage.location import is_local
from shoptoolkit.storage.project_paths import day_file, table_path
from shoptoolkit.table.delta_table import partition_new_table, table_exists
from shoptoolkit.table.first_load import clear_unborn, creating
from shoptoolkit.table_schema import PARTITION_COLUMN, table_ddl
from shoptoolkit.till.day_frames import day_groups, split_size, splits_of
from shoptoolkit.till.in_python import DayFile, fingerprint
from shoptoolkit.till.in_spark import big_enough, spark_sized
from shoptoolkit.till.in_write import REFUSED, adds_columns, days_rows, file_header, refused_in

EPOCH = dt.date(1970, 1, 1)  # DayFacts counts a day by its days since then (Spark's unix_date)

@dataclass
class HeldDays:
    """Days written and not committed: each day's DayFile (from what the job wrote), the written rows' ids,
    the JVM's HeldWrite (shoptoolkit/engine/java/shoptoolkit/HeldWrite.java). Left unfinished, its `with`
    deletes the files."""
    found: dict
    orders: object
    write: object
    lock: ExitStack = field(default_factory=ExitStack)
    created: bool = False  # its commit would create the table: an abort leaves no folder behind
    done: bool = False

    def commit(self, metadata: str) -> int:
        """Commit the written files in one Delta commit with metadata; its version."""
        with self.lock:
            self.done = True
            return java_call(lambda: self.write.commit(metadata))

    def abort(self) -> None:
        with self.lock:
            self.done = True
            java_call(self.write.abort)
        if self.created:
            clear_unborn()

    def __enter__(self):
        return self

    def __exit__(self, *error):
        if not self.done:
            self.abort()


def held_write_class(spark):
    """The JVM's HeldWrite, or None: a Spark Connect client, or a session without the toolkit's JAR."""
    if not hasattr(spark, "_jsparkSession"):
        return None
    from py4j.java_gateway import JavaClass
    found = spark._jvm.shoptoolkit.HeldWrite
    return found if isinstance(found, JavaClass) else None


def one_job_fits(spark, days, size: int = None) -> bool:
    """Whether days load in one job: big files (checked in Spark; size: their bytes when the caller knows
    them), a classic session, a table to write to or one to create unpartitioned on a local root (first_load's lock)."""
    return ((spark_sized(days) if size is None else big_enough(size)) and held_write_class(spark) is not None
            and (table_exists(spark) or (not partition_new_table() and is_local(table_path()))))


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


def observed_facts(spark, rows):
    """(rows, the Observation of their facts by day: DayFacts.java's text, read by day_facts), computed by
    the write's own tasks as they write."""
    from pyspark.sql import Observation, functions as F
    spark._jvm.shoptoolkit.DayFacts.register(spark._jsparkSession)
    facts = Observation("day_facts")
    day_facts = F.call_function("shop_day_facts", F.unix_date(PARTITION_COLUMN), F.col("order_id"), spark_orders_hash(rows))
    return rows.observe(facts, day_facts.alias("days")), facts


def day_facts(text: str) -> tuple:
    """(rows, distinct ids, {day: (rows, lowest id, highest, rows' digest sum)}) from DayFacts' text."""
    first, *lines = text.split("\n")
    rows, distinct = map(int, first.split())
    days = {}
    for line in lines:
        day, count, lowest, highest, high, low = map(int, line.split())
        days[EPOCH + dt.timedelta(days=day)] = (count, lowest, highest, (high << 32) + low)
    return rows, distinct, days


def written_rows(spark, write):
    """The rows write wrote, their ids and days (a partitioned table's day read from the files' folders)."""
    paths = [str(table_path() / unquote(added)) for added in write.added()]
    if not paths:
        return spark.createDataFrame([], "order_id BIGINT, order_date DATE")
    return (spark.read.schema(table_ddl()).option("basePath", str(table_path())).parquet(*paths)
            .select("order_id", PARTITION_COLUMN))


def held_days(spark, days, predicate: str):
    """The files of days written in one job and held (HeldDays), or None when the job, a header or a
    repeated id refuses one (no version holds any of it)."""
    files = {day: file_header(day_file(day)) for day in days}
    if None in files.values():
        return None
    lock, created = ExitStack(), not table_exists(spark)
    if created:
        lock.enter_context(creating())
    held = None
    try:
        with lock:  # left without a HeldWrite, the lock is let go
            write, printed, headers, facts = written_days(spark, files, predicate)
            held = None if write is None else HeldDays({}, written_rows(spark, write), write, lock.pop_all(), created)
    finally:
        if held is None and created:  # the failed job's files, in a folder without commits
            clear_unborn()
    if held is None:
        return None
    rows, distinct, by_day = day_facts(facts)
    if headers != len(days) or distinct != rows:  # a header again, or an id twice
        held.abort()
        return None
    held.found = {day: day_found(day, files[day][0], printed[day], by_day.get(day, (0, None, None, 0))) for day in days}
    return held


def written_days(spark, files: dict, predicate: str) -> tuple:
    """(the HeldWrite, None when a line refused the job; {day: its file's fingerprint}; the header lines the
    job met; its facts by day, DayFacts' text) for files ({day: (columns, line 1)}) written in one job,
    Python hashing them beside it; with mergeSchema when they add a column to the table (held until the
    commit, which adds it with their rows)."""
    sizes = {day: day_file(day).stat().st_size for day in files}
    most, jvm_write, merge = split_size(spark, sum(sizes.values())), held_write_class(spark), adds_columns(files)
    rows, headers = days_rows(spark, files, day_groups(sizes, most))
    rows, facts = observed_facts(spark, rows)
    with ThreadPoolExecutor(1) as beside:
        streamed = beside.submit(lambda: {day: fingerprint(day_file(day)) for day in files})
        with splits_of(spark, most):
            write = java_write(lambda: jvm_write.write(spark._jsparkSession, str(table_path()), rows._jdf, predicate,
                                                       merge))
        printed = streamed.result()
    if write is None:
        return None, printed, None, None
    return write, printed, headers.get["lines"], facts.get["days"]


def day_found(day, columns: list, printed: tuple, facts: tuple) -> DayFile:
    """day's DayFile from its file's fingerprint and written_facts' facts of its rows."""
    size, sha256, _ = printed
    rows, lowest, highest, hashes = facts
    return DayFile(day_file(day), columns, None, size, sha256, rows, lowest, highest, None, spark_digest(hashes))


def java_write(call):
    """call()'s HeldWrite, or None when its job met a refused line (REFUSED); other errors as java_call's.
    PySpark may have turned the JVM's error into its own already (a SparkRuntimeException it knows)."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException
    try:
        return java_call(call, keep=lambda error: refused_in(error.java_exception))
    except Py4JJavaError:
        return None
    except PySparkException as error:
        if REFUSED in str(error):
            return None
        raise
