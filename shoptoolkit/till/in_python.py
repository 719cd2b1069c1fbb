"""A day's landing file, checked line by line and hashed in the one read: what load_day and check_day read.

    from shoptoolkit.till.in_python import read_day_file
    found = read_day_file("2026-09-15")      # DayFile: columns, order ids, size, sha256, count

A bad file is refused with one ToolkitError naming the file, the line and the problem. read_orders
then reads the checked file with Spark, with the table's explicit schema (table_schema.py).
"""
import csv
import datetime as dt
import hashlib
import io
from dataclasses import dataclass, field

from shoptoolkit.errors import ToolkitError
from shoptoolkit.row_values import file_values, rows_digest
from shoptoolkit.storage.project_paths import day_file, shown
from shoptoolkit.table_schema import COLUMNS, CSV_OPTIONS, PARTITION_COLUMN, PARTITION_TYPE, RESCUED, columns_ddl
from shoptoolkit.till.line_rules import bad_line, checked_order, column_types, read_header, rules_for
from shoptoolkit.till.new_columns import current

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
    types: dict = field(init=False)  # {name: type} of its columns beyond the till's (new_columns.py)
    rules: tuple = field(init=False)  # line_rules.RULES and its new columns' rules of type

    def __post_init__(self):
        self.types = column_types(self.columns)
        self.rules = rules_for(self.types)


def read_day_file(day: dt.date, data: bytes = None) -> DayFile:
    """Check every line of day's file; raise ToolkitError naming the file, line and problem. data: the
    file's bytes when a caller has read them already (FileFacts.data), so it is not read again."""
    path = day_file(day)
    if data is None and not path.exists():
        raise ToolkitError(f"no file {shown(path)}")
    digest, seen = hashlib.sha256(), set()
    with (path.open("rb") if data is None else io.BytesIO(data)) as raw:
        rows = numbered_rows(csv.reader(decoded_lines(raw, path, digest)), path)
        found = DayFile(path, read_header(rows, path))
        for line, row in rows:
            if row:  # blank lines (a trailing newline or two) carry no order; ",,," is checked
                order_id = checked_order(row, found, day, line, seen)
                found.order_ids.append(order_id)
                found.values[order_id] = file_values(dict(zip(found.columns, row)), found.types)
    found.size, found.sha256 = path.stat().st_size if data is None else len(data), digest.hexdigest()
    found.rows_digest = rows_digest(found.values.items())
    found.count = len(seen)
    found.lowest, found.highest = min(seen, default=None), max(seen, default=None)
    return found


@dataclass(frozen=True)
class FileFacts:
    """A day file's facts from one read: its size, sha256 and line 1's bytes, and the bytes themselves
    when they were kept (a small file, to be checked without a second read)."""
    size: int
    sha256: str
    first: bytes
    data: bytes = None


def file_facts(path, keep_under: int = 0):
    """path's FileFacts from one read, a MiB at a time, keeping its bytes when it has fewer than
    keep_under; None when there is no file (one request on an object store, not an exists() first)."""
    digest, first, size, kept = hashlib.sha256(), None, 0, []
    try:
        raw = path.open("rb")
    except FileNotFoundError:
        return None
    with raw:
        for chunk in iter(lambda: raw.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
            first = first if first is not None else chunk.split(b"\n", 1)[0]  # a header is far under 1 MiB
            kept = kept + [chunk] if kept is not None and size < keep_under else None
    return FileFacts(size, digest.hexdigest(), first or b"", b"".join(kept) if kept is not None else None)


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


def read_orders(spark, found: DayFile, day: dt.date):
    """The file as a DataFrame with the table's columns, read with an explicit schema; its new columns
    (found.types) as columns of their own, or those the setting rescues as JSON in RESCUED."""
    from pyspark.sql import functions as F
    return (spark.read.schema(columns_ddl(found.columns, found.types))
            .options(**CSV_OPTIONS)
            .csv(str(found.path))
            .select(*COLUMNS, *new_columns(found.types))
            .withColumn(PARTITION_COLUMN, F.lit(day).cast(PARTITION_TYPE)))


def new_columns(types: dict, value=None) -> list:
    """A file's new columns (types: {name: type}) as the table takes them under the setting in force: each as
    a column of its own, or those it rescues as JSON in RESCUED (null for a row with no value there);
    value(name): the column's values (a Column), else the column of that name."""
    from pyspark.sql import functions as F
    value = value or F.col
    rescued = current().rescued(types)
    kept = [value(name).alias(name) for name in types if name not in rescued]
    if rescued:
        json = F.to_json(F.struct(*(value(name).alias(name) for name in rescued)))
        kept.append(F.when(json != "{}", json).alias(RESCUED))
    return kept


def line_of_id(found: DayFile, order_id: int) -> int:
    """The line of the file (a checked one) that holds order_id."""
    with found.path.open(encoding="utf-8-sig", newline="") as handle:
        rows = csv.reader(handle)
        for row in rows:
            if row and dict(zip(found.columns, row)).get("order_id") == str(order_id):
                return rows.line_num
    return 0

