"""Day files as Spark reads them: the checked files of several days as one DataFrame, each file a task
of its own, and every line of some files with its number (what the Spark check reads).

    from shoptoolkit.day_frames import day_files, file_lines, read_days
    read_days(spark, [(day, found)])          # the orders of checked files, with their day
    file_lines(day_files(spark, [path]))      # one row a line: its file, number, bytes and text

Spark reads the files (Hadoop paths, read by the executors); only what a query collects comes back.
"""
from contextlib import contextmanager
from functools import reduce

from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, PARTITION_TYPE, columns_ddl

DAY_FILE_NAME = r"(\d{4}-\d{2}-\d{2})\.csv$"  # project_paths.day_file: the day, then .csv
OPEN_COST = "spark.sql.files.openCostInBytes"


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
               .options(header=True, mode="FAILFAST", timestampFormat="yyyy-MM-dd'T'HH:mm:ss")
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
    spark.conf.set(OPEN_COST, spark.conf.get("spark.sql.files.maxPartitionBytes"))
    try:
        yield
    finally:
        spark.conf.unset(OPEN_COST)


def day_files(spark, paths):
    """The files at paths, a row each, read whole by Spark's binaryFile source (a task a file): day (from
    the file's name), size, sha256 (of all its bytes, as hashlib gives it), lines (how many), ends (its
    last line ends with a line end), header (line 1's bytes, null for an empty file) and all_lines. A
    file is split on LF only, as Python reads it: a CR stays in its line."""
    from pyspark.sql import functions as F
    as_read = (spark.read.format("binaryFile").load([str(path) for path in paths])
               .select(F.regexp_extract("path", DAY_FILE_NAME, 1).alias("day"), F.col("length").alias("size"),
                       F.sha2("content", 256).alias("sha256"),
                       # ISO-8859-1 maps each byte to one character and back: every byte survives the split
                       F.split(F.decode("content", "ISO-8859-1"), "\n", -1).alias("parts")))
    ends = F.element_at("parts", -1) == ""  # a file ending in LF splits into a last, empty part
    files = as_read.select("day", "size", "sha256", ends.alias("ends"),
                           F.when(ends, F.slice("parts", 1, F.size("parts") - 1)).otherwise(F.col("parts"))
                           .alias("all_lines"))
    return files.select("*", F.size("all_lines").alias("lines"),
                        F.encode(F.try_element_at("all_lines", F.lit(1)), "ISO-8859-1").alias("header"))


def file_lines(files):
    """One row a line of day_files' files, with the files' columns: line (its number), raw (its bytes,
    without the LF) and text (raw as a string, not yet checked to be UTF-8). An empty file is one row
    whose line is null."""
    from pyspark.sql import functions as F
    kept = [name for name in files.columns if name != "all_lines"]
    lines = files.select(*kept, F.posexplode_outer("all_lines").alias("at", "latin1"))
    raw = F.encode("latin1", "ISO-8859-1")
    return lines.select(*kept, (F.col("at") + 1).alias("line"), raw.alias("raw"), raw.cast("string").alias("text"))
