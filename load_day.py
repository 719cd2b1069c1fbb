"""Load one day's orders into orders_daily, replacing that day only.

    python load_day.py 2026-09-16      # run date 2026-09-16 loads day 2026-09-15

The day's file is checked line by line before Spark reads it with an explicit schema; a bad file
is refused with one line naming the file, the line and the problem, and the table is not touched.
The write is one Delta commit (replaceWhere on order_date): it lands whole or not at all.
"""
import argparse
import csv
import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field

from delta_session import (COLUMNS, TABLE, ToolkitError, add_root, add_verbose, as_date, day_file, day_loaded_by,
                           delta_spark, orders_table, parse_date, run_main, shown, table_exists,
                           table_path)
from delta_session import new_table_layout
from retry import print_now, retrying

ORDER_ID = re.compile(r"\d{1,18}")
AMOUNT = re.compile(r"-?\d{1,10}(\.\d{1,2})?")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
SPARK_TYPES = {"order_id": "BIGINT", "customer_id": "STRING", "amount": "DECIMAL(12,2)",
               "ordered_at": "TIMESTAMP"}


@dataclass
class DayFile:
    """What a valid day file holds: its columns in file order, its order ids, its fingerprint."""
    path: object
    columns: list
    order_ids: list = field(default_factory=list)
    size: int = 0
    sha256: str = ""
    count: int = 0


def read_day_file(day: dt.date) -> DayFile:
    """Check every line of day's file; raise ToolkitError naming the file, line and problem."""
    path = day_file(day)
    if not path.exists():
        raise ToolkitError(f"no file {shown(path)}")
    digest, seen = hashlib.sha256(), set()
    with open(path, "rb") as raw:
        rows = csv.reader(decoded_lines(raw, path, digest))
        found = DayFile(path, read_header(rows, path))
        for row in rows:
            if not row:
                continue  # blank lines (a trailing newline or two) carry no order; ",,," is checked
            order_id = check_row(dict(zip(found.columns, row)), len(row), found, day, rows.line_num)
            if order_id in seen:
                raise bad_line(path, rows.line_num, f"order_id {order_id} appears twice in the file")
            seen.add(order_id)
            found.order_ids.append(order_id)
    found.size, found.sha256 = path.stat().st_size, digest.hexdigest()
    found.count = len(seen)
    return found


def decoded_lines(raw, path, digest):
    """The file's lines as text, hashing the bytes as they pass; not UTF-8 is refused with its line."""
    for number, line in enumerate(raw, start=1):
        digest.update(line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_line(path, number, "bytes that are not UTF-8") from None
        yield text.lstrip("\ufeff") if number == 1 else text


def read_header(rows, path) -> list:
    header = next(rows, None)
    if header is None:
        raise ToolkitError(f"{shown(path)}: empty file (0 bytes), expected the header "
                           f"{','.join(COLUMNS)} at least")
    names = [name.strip() for name in header]
    if names and ORDER_ID.fullmatch(names[0]):
        raise bad_line(path, 1, f"no header: expected {','.join(COLUMNS)}")
    missing = [name for name in COLUMNS if name not in names]
    extra = [name for name in names if name not in COLUMNS]
    if missing or extra or len(set(names)) != len(names):
        problem = "; ".join(filter(None, [missing and f"missing column {', '.join(missing)}",
                                          extra and f"unexpected column {', '.join(extra)}"]))
        raise bad_line(path, 1, f"{problem or 'a column twice'} (expected {','.join(COLUMNS)})")
    return names


def check_row(row: dict, width: int, found: DayFile, day: dt.date, line: int) -> int:
    """Check one order; return its id."""
    if width != len(found.columns):
        raise bad_line(found.path, line, f"{width} fields, expected {len(found.columns)}")
    if not ORDER_ID.fullmatch(row["order_id"]):
        raise bad_line(found.path, line, f"order_id {row['order_id']!r} is not a whole number")
    if not AMOUNT.fullmatch(row["amount"]):
        raise bad_line(found.path, line, f"amount {row['amount']!r} is not a number like 19.99")
    if row["amount"].startswith("-"):
        raise bad_line(found.path, line, f"amount {row['amount']} is negative")
    if not row["customer_id"].strip():
        raise bad_line(found.path, line, "customer_id is empty")
    if not TIMESTAMP.fullmatch(row["ordered_at"]) or not valid_timestamp(row["ordered_at"]):
        raise bad_line(found.path, line, f"ordered_at {row['ordered_at']!r} is not a timestamp "
                                         f"like {day}T20:30:00")
    if row["ordered_at"][:10] != day.isoformat():
        raise bad_line(found.path, line, f"ordered_at {row['ordered_at']} is not on {day}")
    return int(row["order_id"])


def valid_timestamp(text: str) -> bool:
    try:
        dt.datetime.fromisoformat(text)
        return True
    except ValueError:
        return False


def bad_line(path, line: int, problem: str) -> ToolkitError:
    return ToolkitError(f"{shown(path)} line {line}: {problem}")


def read_orders(spark, found: DayFile, day: dt.date):
    """The file as a DataFrame with the table's columns, read with an explicit schema."""
    from pyspark.sql import functions as F
    schema = ", ".join(f"{name} {SPARK_TYPES[name]}" for name in found.columns)
    return (spark.read.schema(schema)
            .options(header=True, mode="FAILFAST", timestampFormat="yyyy-MM-dd'T'HH:mm:ss")
            .csv(str(found.path))
            .select(*COLUMNS)
            .withColumn("order_date", F.lit(day).cast("date")))


# Up to this many ids, the clash check names them in the query (one job, no join); a bigger day
# is joined with its own rows read from the file instead.
IDS_IN_QUERY = 1000


def ids_on_other_days(spark, found: DayFile, orders, day: dt.date) -> list:
    """Order ids of this file that the table already holds on another day (at most 5).

    The filter on the file's lowest and highest id lets Delta skip every stored file whose id
    range (min/max in its statistics) cannot overlap, so the check reads nothing for a shop whose
    ids grow day by day, however long the table is."""
    if not found.order_ids or not table_exists(spark):
        return []
    from pyspark.sql import functions as F
    stored = (orders_table(spark)
              .where(F.col("order_id").between(min(found.order_ids), max(found.order_ids)))
              .where(F.col("order_date") != F.lit(day))
              .select("order_id", "order_date"))
    if len(found.order_ids) <= IDS_IN_QUERY:
        stored = stored.where(F.col("order_id").isin(found.order_ids))
    else:
        stored = stored.join(orders.select("order_id"), "order_id", "left_semi")
    return sorted((row.order_id, row.order_date) for row in stored.limit(5).collect())


def line_of_id(found: DayFile, order_id: int) -> int:
    """The line of the file (a checked one) that holds order_id."""
    with open(found.path, encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        for row in rows:
            if row and dict(zip(found.columns, row)).get("order_id") == str(order_id):
                return rows.line_num
    return 0


def lineage(run_date: dt.date, day: dt.date, found: DayFile) -> str:
    """What this commit loaded, as JSON for the commit's user metadata."""
    return json.dumps({"run_date": str(run_date), "day": str(day), "file": shown(found.path),
                       "size": found.size, "sha256": found.sha256,
                       "rows_read": found.count, "rows_written": found.count}, sort_keys=True)


def load_day(spark, run_date) -> str:
    """Replace the day before run_date with its landing file; return the line to print."""
    run_date = as_date(run_date)
    day = day_loaded_by(run_date)
    if not day_file(day).exists():
        raise ToolkitError(f"no file {shown(day_file(day))} for run {run_date}")
    found = read_day_file(day)
    orders = read_orders(spark, found, day)
    clash = ids_on_other_days(spark, found, orders, day)
    if clash:
        listed = ", ".join(f"{order_id} (on {on})" for order_id, on in clash)
        raise bad_line(found.path, line_of_id(found, clash[0][0]),
                       f"order_id already stored on another day: {listed}")
    writer = (orders.write.format("delta").mode("overwrite")
              .option("replaceWhere", f"order_date = '{day}'")
              .option("userMetadata", lineage(run_date, day, found)))
    new_table_layout(spark, writer).save(str(table_path()))
    total = orders_table(spark).count()
    return f"run {run_date} loaded {day}: {found.count} rows, {TABLE} has {total}"


def load_retrying(spark, run_date, show=print_now, attempts=None, load=load_day) -> str:
    """load(spark, run_date), tried again when it loses a write conflict to another writer (retry.py)."""
    return retrying(lambda: load(spark, run_date), f"run {as_date(run_date)}", show, attempts)


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_date", type=parse_date, help="run date D (YYYY-MM-DD); the run loads D-1")
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)  # a bad date is a usage error before Spark starts

    def body():
        print(load_retrying(delta_spark("load_day"), args.run_date))
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
