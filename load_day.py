"""Load one day's orders into orders_daily, replacing that day only.

    python load_day.py 2026-09-16      # run date 2026-09-16 loads day 2026-09-15

A small day's file is checked line by line in Python before Spark reads it with an explicit schema; a
big day's is read, checked and written in one Spark job whose commit waits for its facts
(shoptoolkit/writing/held_write.py). A bad file is refused with one line naming the file, the line and the
problem, and no version of the table holds any of it.
The write is one Delta commit (replaceWhere on order_date): it lands whole or not at all.
"""
import argparse
import datetime as dt

from delta_session import TABLE, delta_spark, new_table_layout, queries_for
from shoptoolkit.run_args import (ToolkitError, add_new_column, add_root, add_verbose, as_date, day_loaded_by,
                                  parse_date, run_main)
from shoptoolkit.storage import day_file, shown, table_path
from shoptoolkit.table import IDS_IN_QUERY, PARTITION_COLUMN, existing_table, lineage, table_after_write
from shoptoolkit.till import (DayFile, bad_line, checked_day, current, file_facts, line_of, read_orders, setting_for,
                              spark_check_bytes, table_extras, using)
from shoptoolkit.writing import (HeldDays, day_predicate, held_days, one_job_fits, print_now, retrying,
                                 take_back_late_clashes, version_checked)


def ids_on_other_days(spark, found: DayFile, orders, day: dt.date, table=None) -> list:
    """Order ids of this file that the table (orders_daily now, or as at a version) holds on another day
    (at most 5).

    The filter on the file's lowest and highest id lets Delta skip every stored file whose id
    range (min/max in its statistics) cannot overlap, so the check reads nothing for a shop whose
    ids grow day by day, however long the table is. A file checked in Spark is always joined: its ids
    never came to Python."""
    if not found.count:
        return []
    table = existing_table(spark) if table is None else table
    if table is None:
        return []
    from pyspark.sql import functions as F
    stored = (table.where(F.col("order_id").between(found.lowest, found.highest))
              .where(F.col(PARTITION_COLUMN) != F.lit(day))
              .select("order_id", PARTITION_COLUMN))
    if found.order_ids is not None and len(found.order_ids) <= IDS_IN_QUERY:
        stored = stored.where(F.col("order_id").isin(found.order_ids))
    elif stored.isEmpty():  # no stored id in the file's range: the file need not be read again
        return []
    else:
        stored = stored.join(orders.select("order_id"), "order_id", "left_semi")
    return sorted((row.order_id, row[PARTITION_COLUMN]) for row in stored.limit(5).collect())


def clash_refusal(spark, found: DayFile, orders, day: dt.date, table=None) -> dict:
    """{day: the line that refuses the file} when the table holds one of its ids on another day, else {}."""
    clash = ids_on_other_days(spark, found, orders, day, table)
    if not clash:
        return {}
    listed = ", ".join(f"{order_id} (on {on})" for order_id, on in clash)
    return {day: str(bad_line(found.path, line_of(spark, found, clash[0][0]),
                              f"order_id already stored on another day: {listed}"))}


def load_day(spark, run_date, on_new_column=None, column_types=None) -> str:
    """Replace the day before run_date with its landing file; return the line to print. on_new_column:
    what a column the table lacks does, fail, add or rescue, and column_types the new columns' types
    (`discount DECIMAL(10,2)`), else SHOP_ON_NEW_COLUMN's and SHOP_COLUMN_TYPES' (docs/new_columns.md)."""
    run_date = as_date(run_date)
    day = day_loaded_by(run_date)
    facts = file_facts(day_file(day), keep_under=spark_check_bytes())  # one read: size, sha256, a small file's bytes
    if facts is None:
        raise ToolkitError(f"no file {shown(day_file(day))} for run {run_date}")
    with queries_for(spark, facts.size):
        checked_at, table = version_checked(spark), existing_table(spark)
        extras = table_extras(table.schema) if table is not None else {}
        with using(setting_for(on_new_column, column_types, extras)):
            return loaded(spark, run_date, day, facts, checked_at)


def loaded(spark, run_date, day, facts, checked_at: int) -> str:
    """load_day's work, the table's version before its checks taken and the setting of new columns in force."""
    one_job = one_job_fits(spark, [day], facts.size)
    held = held_days(spark, [day], day_predicate(day)) if one_job else None  # None: the check words it
    metadata, found, orders = (commit_held(spark, run_date, day, held) if held
                               else write_checked(spark, run_date, day, facts))
    late = take_back_late_clashes(spark, checked_at, metadata,
                                  lambda table: clash_refusal(spark, found, orders, day, table),
                                  columns=current().table)  # ColumnsChanged: the table gained one meanwhile
    if late:
        raise ToolkitError(late[day])
    total = table_after_write(spark).count()
    return f"run {run_date} loaded {day}: {found.count} rows, {TABLE} has {total}"


def commit_held(spark, run_date, day, held: HeldDays) -> tuple:
    """(metadata, DayFile, ids) of a day written in one job (held_write.py), committed unless one of its
    ids is stored on another day: then its files are deleted and the clash refuses it (and the columns
    its write would have added with it)."""
    with held:  # the written files are deleted unless committed
        found = held.found[day]
        clash = clash_refusal(spark, found, held.orders, day)
        if clash:
            raise ToolkitError(clash[day])
        metadata = lineage(run_date, day, found, current().added(found.types), current().absent(found.columns))
        held.commit(metadata)
    return metadata, found, held.orders


def write_checked(spark, run_date, day, facts=None) -> tuple:
    """(metadata, DayFile, orders) of a day whose file is checked (in Python, or in Spark for a big file:
    till/in_spark.py), then read and written, unless an id of it is stored on another day. facts: the
    file's FileFacts, when load_day has read it."""
    found = checked_day(spark, day, facts=facts)
    orders = read_orders(spark, found, day)
    clash = clash_refusal(spark, found, orders, day)
    if clash:
        raise ToolkitError(clash[day])
    # The day as a DATE literal: Delta's delete then skips every stored file of another day by
    # its statistics (with a string it skips none, and reads them all: a job that grows with the table).
    added = current().added(found.types)  # added in this commit (mergeSchema): a refused load adds none
    metadata = lineage(run_date, day, found, added, current().absent(found.columns))
    writer = (orders.write.format("delta").mode("overwrite").option("mergeSchema", str(bool(added)).lower())
              .option("replaceWhere", f"{PARTITION_COLUMN} = DATE'{day}'").option("userMetadata", metadata))
    new_table_layout(spark, writer).save(str(table_path()))
    return metadata, found, orders


def load_retrying(spark, run_date, show=print_now, attempts=None, load=load_day) -> str:
    """load(spark, run_date), tried again when it loses a write conflict to another writer (retry.py)."""
    return retrying(lambda: load(spark, run_date), f"run {as_date(run_date)}", show, attempts)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_date", type=parse_date, help="run date D (YYYY-MM-DD); the run loads D-1")
    add_verbose(parser)
    add_root(parser)
    add_new_column(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)  # a bad date is a usage error before Spark starts

    def body():
        print(load_retrying(delta_spark("load_day", commits=1, days=[day_loaded_by(args.run_date)]), args.run_date))
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
