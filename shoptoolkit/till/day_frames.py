"""Day files as Spark reads them: the checked files of several days as one DataFrame, or packed in few
tasks of consecutive days for a write; the lines of some files, read in splits (what the Spark check reads).

    from shoptoolkit.till.day_frames import packed_days, read_days, split_lines
    read_days(spark, [(day, found)])          # the orders of checked files, with their day
    packed_days(spark, [(day, found)])        # the same rows, a task (and a written file) a run of days
    split_lines(spark, [path])                # one row a line: its day, split, place in it, bytes, text

Spark reads the files (Hadoop paths, read by the executors); only what a query collects comes back.
"""
from contextlib import contextmanager
from functools import reduce

from shoptoolkit.engine.spark_settings import session_cores
from shoptoolkit.table_schema import COLUMNS, CSV_OPTIONS, PARTITION_COLUMN, PARTITION_TYPE, columns_ddl
from shoptoolkit.till.in_python import new_columns

DAY_FILE_NAME = r"(\d{4}-\d{2}-\d{2})\.csv$"  # project_paths.day_file: the day, then .csv
MAX_PARTITION = "spark.sql.files.maxPartitionBytes"
MIN_SPLIT = 4 * 1024 * 1024  # a smaller split costs more in its task's start than it saves


def read_days(spark, found_days: list):
    """The files of several days as one DataFrame, like read_orders: [(day, DayFile)], one read per
    column order (a header may name the columns in any order), each row's day from its file's name, the
    files' new columns as read_orders takes them (a day whose file lacks one holds null there)."""
    from pyspark.sql import functions as F
    by_columns = {}
    for _, found in found_days:
        by_columns.setdefault(tuple(found.columns), []).append(found)
    frames = [(spark.read.schema(columns_ddl(columns, files[0].types))
               .options(**CSV_OPTIONS)
               .csv([str(found.path) for found in files])
               .select(*COLUMNS, *new_columns(files[0].types), F.regexp_extract("_metadata.file_name", DAY_FILE_NAME, 1)
                       .cast(PARTITION_TYPE).alias(PARTITION_COLUMN)))
              for columns, files in by_columns.items()]
    return reduce(by_name, frames)


def by_name(one, other):
    """Two frames of orders as one, by their columns' names: a new column one of them lacks is null there."""
    return one.unionByName(other, allowMissingColumns=True)


def day_groups(sizes: dict, most: int) -> list:
    """The days of sizes ({day: its files' bytes}) in order, in runs of consecutive days whose files hold most
    bytes at most together; a bigger day is a run of its own."""
    groups, size = [], 0
    for day in sorted(sizes):
        if groups and size + sizes[day] <= most:
            groups[-1].append(day)
            size += sizes[day]
        else:
            groups.append([day])
            size = sizes[day]
    return groups


def packed_days(spark, found_days: list):
    """read_days' rows, each run of consecutive days (day_groups, split_size's bytes a run) read by one
    task, a file bigger than that in its own splits: a write of it makes a file a run, whose days are
    one range apart from the other files' (so a later replaceWhere of one day opens one file), instead
    of a file a day or files that mix days from all over the commit as Spark's own packing does."""
    found = dict(found_days)
    most = split_size(spark, sum(one.size for one in found.values()))
    groups = day_groups({day: one.size for day, one in found.items()}, most)
    return in_tasks([read_days(spark, [(day, found[day]) for day in group]) for group in groups], groups)


def in_tasks(frames: list, groups: list):
    """The frames (one a run of days_groups' groups) as one: a run of several days a task, a day alone in
    its own splits."""
    return reduce(by_name, [frame.coalesce(1) if len(group) > 1 else frame for frame, group in zip(frames, groups)])


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
