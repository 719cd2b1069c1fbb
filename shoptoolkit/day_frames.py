"""Day files as Spark reads them: the checked files of several days as one DataFrame, each file a task
of its own; the lines of some files, read in splits (what the Spark check reads).

    from shoptoolkit.day_frames import read_days, split_lines
    read_days(spark, [(day, found)])          # the orders of checked files, with their day
    split_lines(spark, [path])                # one row a line: its day, split, place in it, bytes, text

Spark reads the files (Hadoop paths, read by the executors); only what a query collects comes back.
"""
from contextlib import contextmanager
from functools import reduce

from shoptoolkit.table_schema import COLUMNS, CSV_OPTIONS, PARTITION_COLUMN, PARTITION_TYPE, columns_ddl

DAY_FILE_NAME = r"(\d{4}-\d{2}-\d{2})\.csv$"  # project_paths.day_file: the day, then .csv
OPEN_COST = "spark.sql.files.openCostInBytes"
MAX_PARTITION = "spark.sql.files.maxPartitionBytes"
MIN_SPLIT = 4 * 1024 * 1024  # a smaller split costs more in its task's start than it saves


def read_days(spark, found_days: list):
    """The files of several days as one DataFrame, like read_orders: [(day, DayFile)], one read per
    column order (a header may name the columns in any order), each row's day from its file's name.
    Read inside one_file_a_task, each file is a partition of its own (a write then keeps each day in
    files of its own)."""
    from pyspark.sql import functions as F
    by_columns = {}
    for _, found in found_days:
        by_columns.setdefault(tuple(found.columns), []).append(str(found.path))
    frames = [(spark.read.schema(columns_ddl(columns))
               .options(**CSV_OPTIONS)
               .csv(paths)
               .select(*COLUMNS, F.regexp_extract("_metadata.file_name", DAY_FILE_NAME, 1)
                       .cast(PARTITION_TYPE).alias(PARTITION_COLUMN)))
              for columns, paths in by_columns.items()]
    return reduce(lambda one, other: one.unionByName(other), frames)


@contextmanager
def one_file_a_task(spark):
    """While inside, Spark reads each file as a partition of its own: opening a file is made to cost as
    much as a whole partition's bytes (spark.sql.files.openCostInBytes), so no two files share one.
    Unset on the way out, as expression_mode does."""
    spark.conf.set(OPEN_COST, spark.conf.get(MAX_PARTITION))
    try:
        yield
    finally:
        spark.conf.unset(OPEN_COST)


@contextmanager
def splits_of(spark, split: int):
    """While inside, Spark reads files in splits of split bytes at most (a file's splits start at 0,
    split, 2 * split, ...), and packs small files together in a task. Put back on the way out."""
    before = spark.conf.get(MAX_PARTITION)
    spark.conf.set(MAX_PARTITION, str(split))
    try:
        yield
    finally:
        spark.conf.set(MAX_PARTITION, before)


def split_size(spark, total: int) -> int:
    """Bytes a split for reading total bytes of files: two splits a core, none under MIN_SPLIT."""
    return max(MIN_SPLIT, -(-total // (2 * session_cores(spark))))


def session_cores(spark) -> int:
    """The executors' cores, as Spark counts them (local[*]: the machine's; a cluster: its workers')."""
    try:
        return spark.sparkContext.defaultParallelism
    except Exception:  # a Spark Connect session has no SparkContext: count two cores
        return 2


def split_lines(spark, paths):
    """One row a line of the files at paths, read in splits by Spark's text source, split on LF only (a CR
    stays in its line), to be collected inside splits_of: day (from the file's name), block (the first
    byte of the line's split), at (the line's place in its task: the lines of one split are in order and
    one after another), raw (its bytes, without the LF) and text (raw as a string, not yet checked to be
    UTF-8)."""
    from pyspark.sql import functions as F
    in_task = F.monotonically_increasing_id().bitwiseAND(2 ** 33 - 1)  # Spark's count of rows in the task
    return (spark.read.options(lineSep="\n").text([str(path) for path in paths])
            .select(F.regexp_extract("_metadata.file_name", DAY_FILE_NAME, 1).alias("day"),
                    F.col("_metadata.file_block_start").alias("block"), in_task.alias("at"),
                    F.col("value").cast("binary").alias("raw"), F.col("value").alias("text")))
