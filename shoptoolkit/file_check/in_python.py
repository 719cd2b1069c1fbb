"""A day's landing file, checked line by line and hashed in the one read: what load_day and check_day read.

    from shoptoolkit.file_check.in_python import read_day_file
    found = read_day_file("2026-09-15")      # DayFile: columns, order ids, size, sha256, count

A bad file is refused with one ToolkitError naming the file, the line and the problem. read_orders
then reads the checked file with Spark, with the table's explicit schema (table_schema.py).
"""
import csv
import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field

from shoptoolkit.errors import ToolkitError
from shoptoolkit.project_paths import day_file, shown
from shoptoolkit.row_values import file_values, rows_digest
from shoptoolkit.table_schema import COLUMNS, CSV_OPTIONS, PARTITION_COLUMN, PARTITION_TYPE, columns_ddl

ORDER_ID = re.compile(r"\d{1,18}")
AMOUNT = re.compile(r"-?\d{1,10}(\.\d{1,2})?")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
# Control characters (Unicode's Cc: C0, DEL, C1): a field holding one (ESC, BEL, NUL, tab, a line end
# inside quotes, ...) is refused and shown escaped, so that a bad file cannot repaint the terminal of
# whoever reads the refusal.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass
class DayFile:
    """What a valid day file holds: its columns in file order, its order ids (None when Spark checked it:
    the ids stay in Spark), their range, its fingerprint, each order's values (row_values.file_values, by
    id; None from Spark) and the digest of its rows (row_values.digest)."""
    path: object
    columns: list
    order_ids: list = field(default_factory=list)
    size: int = 0
    sha256: str = ""
    count: int = 0
    lowest: int = None
    highest: int = None
    values: dict = field(default_factory=dict)
    rows_digest: str = ""


def read_day_file(day: dt.date) -> DayFile:
    """Check every line of day's file; raise ToolkitError naming the file, line and problem."""
    path = day_file(day)
    if not path.exists():
        raise ToolkitError(f"no file {shown(path)}")
    digest, seen = hashlib.sha256(), set()
    with path.open("rb") as raw:
        rows = numbered_rows(csv.reader(decoded_lines(raw, path, digest)), path)
        found = DayFile(path, read_header(rows, path))
        for line, row in rows:
            if row:  # blank lines (a trailing newline or two) carry no order; ",,," is checked
                order_id = checked_order(row, found, day, line, seen)
                found.order_ids.append(order_id)
                found.values[order_id] = file_values(dict(zip(found.columns, row)))
    found.size, found.sha256 = path.stat().st_size, digest.hexdigest()
    found.rows_digest = rows_digest(found.values.items())
    found.count = len(seen)
    found.lowest, found.highest = min(seen, default=None), max(seen, default=None)
    return found


def fingerprint(path) -> tuple:
    """(size, sha256, line 1's bytes without its LF) of a file, read a MiB at a time: no file is held
    whole, whatever its size. The Spark path's hash (its lines are read by Spark, in splits)."""
    digest, first = hashlib.sha256(), None
    with path.open("rb") as raw:
        for chunk in iter(lambda: raw.read(1 << 20), b""):
            digest.update(chunk)
            first = first if first is not None else chunk.split(b"\n", 1)[0]  # a header is far under 1 MiB
    return path.stat().st_size, digest.hexdigest(), first or b""


def decoded_lines(raw, path, digest=None, first: int = 1):
    """The file's lines as text (raw: its lines as bytes, the first of them line `first`), hashing the
    bytes as they pass; not UTF-8 is refused with its line."""
    for number, line in enumerate(raw, start=first):
        if digest:
            digest.update(line)
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError:
            raise bad_line(path, number, "bytes that are not UTF-8") from None
        yield text.lstrip("\ufeff") if number == 1 else text


def numbered_rows(rows, path, before: int = 0):
    """(line, row) for each record of a csv reader whose first line is line before + 1; a line csv cannot
    read (a lone CR inside a line: "new-line character seen in unquoted field - ...") is refused."""
    try:
        for row in rows:
            yield before + rows.line_num, row
    except csv.Error as error:
        raise bad_line(path, before + rows.line_num, f"not a CSV line ({str(error).split(' - ')[0]})") from None


def read_header(rows, path) -> list:
    """The header's column names (rows: numbered_rows); a file with no header or a bad one is refused."""
    first = next(rows, None)
    if first is None:
        raise ToolkitError(f"{shown(path)}: empty file (0 bytes), expected the header "
                           f"{','.join(COLUMNS)} at least")
    header = first[1]
    for name in header:
        refuse_control(path, 1, "column name", name)
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


def checked_order(row: list, found: DayFile, day: dt.date, line: int, seen: set) -> int:
    """Check one line's order and that no earlier line holds its id; return the id, added to seen."""
    order_id = check_row(dict(zip(found.columns, row)), len(row), found, day, line)
    if order_id in seen:
        raise twice(found.path, line, order_id)
    seen.add(order_id)
    return order_id


def twice(path, line: int, order_id: int) -> ToolkitError:
    return bad_line(path, line, f"order_id {order_id} appears twice in the file")


def check_row(row: dict, width: int, found: DayFile, day: dt.date, line: int) -> int:
    """Check one order; return its id."""
    if width != len(found.columns):
        raise bad_line(found.path, line, f"{width} fields, expected {len(found.columns)}")
    for name in found.columns:
        refuse_control(found.path, line, name, row[name])
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


def refuse_control(path, line: int, name: str, value: str) -> None:
    """A field holding a control character is refused; repr shows it escaped (`\\x1b`), never raw."""
    found = CONTROL.search(value)
    if found:
        raise bad_line(path, line, f"{name} {value!r} holds a control character ({found.group()!r})")


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
    return (spark.read.schema(columns_ddl(found.columns))
            .options(**CSV_OPTIONS)
            .csv(str(found.path))
            .select(*COLUMNS)
            .withColumn(PARTITION_COLUMN, F.lit(day).cast(PARTITION_TYPE)))


def line_of_id(found: DayFile, order_id: int) -> int:
    """The line of the file (a checked one) that holds order_id."""
    with found.path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        for row in rows:
            if row and dict(zip(found.columns, row)).get("order_id") == str(order_id):
                return rows.line_num
    return 0

