"""Rewrite orders_daily partitioned by order_date, in one commit, keeping every row.

    python partition_table.py      # an unpartitioned orders_daily becomes partitioned by order_date

The table is read at its current version and written back whole with overwriteSchema and
partitionBy: one Delta commit, so the table is either as before or fully partitioned. The rows
are then compared with the version before (time travel); the closing line says what it found.
A table that is already partitioned is left alone. A run in another process that commits meanwhile
makes this commit lose a write conflict: nothing changes, and the rewrite is tried again from the
newest version (retry.py), one line per retry.
To have a new table partitioned from its first write, set SHOP_PARTITIONED=1 instead.
"""
import argparse

from delta_session import (TABLE, delta_spark, history_frame, partition_columns, register_table, table_at_version,
                           table_version)
from shoptoolkit.run_args import ToolkitError, add_root, add_verbose, run_main
from shoptoolkit.storage import table_path
from shoptoolkit.table import PARTITION_COLUMN
from shoptoolkit.writing import print_now, retrying


def rewrite_partitioned(spark) -> int:
    """Write the newest version back whole, partitioned by order_date; return the version it read."""
    before = table_version(spark)
    (table_at_version(spark, before).write.format("delta").mode("overwrite")
     .option("overwriteSchema", "true")
     .partitionBy(PARTITION_COLUMN)
     .save(str(table_path())))
    return before


def rewrite_version(spark, before: int) -> int:
    """The version of the rewrite that read version before: the first later commit that partitioned the
    table (another writer may have committed since, so it is not always the newest)."""
    from pyspark.sql import functions as F
    partitioned = F.col("operationParameters").getItem("partitionBy") == f'["{PARTITION_COLUMN}"]'
    return (history_frame(spark).where((F.col("version") > before) & partitioned)
            .agg(F.min("version")).first()[0])


def partition_by_day(spark, show=print_now) -> str:
    """Rewrite the table partitioned by order_date unless it is already; return the line to print.

    A rewrite that loses a write conflict to a run committing meanwhile is tried again (retry.py)."""
    if partition_columns(spark) == [PARTITION_COLUMN]:
        return f"{TABLE} is already partitioned by {PARTITION_COLUMN}: nothing to do"
    before = retrying(lambda: rewrite_partitioned(spark), f"partitioning {TABLE}", show)
    after = rewrite_version(spark, before)
    register_table(spark, refresh=True)  # the name's view still has the old layout
    old, new = table_at_version(spark, before), table_at_version(spark, after)
    lost, gained = old.exceptAll(new).count(), new.exceptAll(old).count()
    if lost or gained or partition_columns(spark) != [PARTITION_COLUMN]:
        raise ToolkitError(f"{TABLE} version {after} differs from version {before} ({lost} rows lost, "
                           f"{gained} gained): restore it with RESTORE TABLE {TABLE} TO VERSION AS OF {before}")
    return (f"{TABLE} is now partitioned by {PARTITION_COLUMN}: version {before} -> {after}, "
            f"{new.count()} rows, the same as before")


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        print(partition_by_day(delta_spark("partition_table", commits=1)))
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
