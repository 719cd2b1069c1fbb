"""The lines of big day files as Spark's queries see them, for the Spark path of the check (in_spark.py):
a Scan a file, filled in by one query over the files of a day or of a commit (count_lines: line counts,
ids' range, rows' hashes, first refused line). The files are read in splits (split_lines), several tasks
a big file, several small files a task; a line is known by its split's first byte and its place in its
task, its number from the lines of the splits before it (the same query finds them). The other queries
read one file again, only for a refused file."""
import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from functools import reduce

from shoptoolkit.row_values import spark_hash_sum
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.till.csv_sql import line_kind
from shoptoolkit.till.day_frames import split_lines, split_size, splits_of
from shoptoolkit.till.line_rules import column_types, rules_for
from shoptoolkit.till.rules_sql import common_test, line_hash, order_id, refused_order


@dataclass
class Scan:
    """One file as Spark's queries found it. Until its lines are counted, lines and ends say what line 1 shows."""
    day: dt.date
    size: int
    sha256: str
    header: bytes
    split: int
    columns: list = None
    counts: list = field(default_factory=list)  # lines in each split, in the file's order
    firsts: list = field(default_factory=list)  # the place in its task of each split's first line
    ends: bool = True
    orders: int = 0
    lowest: int = None
    highest: int = None
    distinct: int = 0
    refused: int = None  # the first line refused
    opens: int = None  # the first line that opens a quoted field it does not close
    hashes: int = 0  # the sum of its orders' row hashes (row_values.py)
    alone: object = None  # the file's Scan when read alone (layout), for the queries over it alone
    digest: bool = True  # whether the query hashes its orders (for a load's lineage)

    def __post_init__(self):
        self.ends = self.size > len(self.header)  # line 1 ends in LF; the count of lines says for the last

    @property
    def lines(self) -> int:
        return sum(self.counts) if self.counts else 1 + (self.size > len(self.header) + 1)

    @property
    def line_one(self) -> bytes:
        """Line 1 as Spark reads it: Hadoop's line reader drops a UTF-8 byte-order mark at a file's start."""
        return self.header.removeprefix(b"\xef\xbb\xbf")

    def whole(self, read: int) -> bool:
        """Whether read bytes of lines, an LF after each, as Spark read them, are the whole file."""
        return read + len(self.header) - len(self.line_one) == self.size

    def line(self, block: int, at: int) -> int:
        """The number of a line from its split's first byte and its place in its task."""
        number = block // self.split
        return sum(self.counts[:number]) + at - self.firsts[number] + 1


def checked_lines(spark, paths, columns, header: bytes = None, digest: bool = True, found=None):
    """split_lines of files whose header names columns (in that order) and is header (its bytes), each line
    with text, common and fields (rules_sql's; found: java_common_line's struct, or null), refused (check_row,
    csv or UTF-8 refuses it), opens (a quoted field goes on past its end), order_id and row_hash (of an order
    the line check accepts); a line of the first split that is the header's bytes is is_header, none of these."""
    from pyspark.sql import functions as F
    places, types = {name: F.lit(columns.index(name) + 1) for name in columns}, column_types(columns)
    kind, fields, controls = line_kind(F.col("text"), F.lit(False))  # an open last line: see file_verdict
    rare, (common, line_id) = ~F.col("common"), common_test(columns, found)  # every rule for a rare line only
    lines = (split_lines(spark, paths).withColumn("found", F.lit(None) if found is None else found)
             .select("*", common.alias("common"),
                     ((F.col("block") == 0) & (F.col("raw") == F.lit(bytearray(header))) if header is not None
                      else F.lit(False)).alias("is_header"))
             .select("*", *(F.when(rare, value).alias(name) for name, value in (
                 ("kind", kind), ("fields", fields), ("controls", controls), ("utf8", F.is_valid_utf8("text")))))
             .select("*", F.when(rare, refused_order(F.col("fields"), F.col("controls"), places, F.col("day"), rules_for(types)))
                     .alias("bad")))
    data, kind, utf8 = ~F.col("is_header"), F.col("kind"), F.col("utf8")
    refused = data & rare & (~utf8 | (kind == "error") | ((kind == "order") & F.col("bad")))
    accepted = data & (F.col("common") | (utf8 & (kind == "order") & ~F.col("bad")))
    found_id = F.when(F.col("common"), line_id).otherwise(order_id(F.col("fields"), places))
    return (lines.select("day", "block", "at", "raw", "text", "common", "fields", "found", "is_header", refused.alias("refused"),
                         (data & rare & utf8 & (kind == "open")).alias("opens"), F.when(accepted, found_id).alias("order_id"))
            .withColumn("row_hash", F.when(F.col("order_id").isNotNull() & F.lit(digest),
                                           line_hash(F.col("order_id"), columns, types))))


def count_lines(spark, scans: list) -> None:
    """Fill in each scan from one query over the lines of all their files."""
    if not scans:
        return
    by_header, split = {}, scans[0].split
    for scan in scans:
        by_header.setdefault((tuple(scan.columns), scan.line_one), []).append(day_file(scan.day))
    lines = reduce(lambda one, other: one.unionByName(other),
                   [checked_lines(spark, paths, list(columns), header, scan.digest) for (columns, header), paths in by_header.items()])
    with splits_of(spark, split):
        rows = per_file(lines, split, max(-(-scan.size // split) for scan in scans)).collect()
    found = {row.day: row for row in rows}
    for scan in scans:
        _, counts, firsts, size, headers, orders, lowest, highest, distinct, refused, opens, scan.hashes = found[str(scan.day)]
        scan.counts, scan.firsts = counts[:-(-scan.size // split)], firsts[:-(-scan.size // split)]
        scan.ends, scan.orders, scan.lowest, scan.highest, scan.distinct = scan.whole(size), orders, lowest, highest, distinct
        refused = [scan.line(*refused)] if refused else []
        scan.refused = min(refused + ([repeated_header(spark, scan)] if headers > 1 else []), default=None)
        scan.opens = scan.line(*opens) if opens else None


def per_file(lines, split: int, splits: int):
    """A row a file of checked_lines: the lines in each of its splits and the place of each one's first line,
    its bytes counted from them (its size when it ends in LF), how many lines are the header's bytes, its
    orders, their lowest, highest and distinct ids, its first refused and first opening line (split, place),
    its rows' hashes summed. By bucket of ids first, where Spark's bitmaps count distinct ids exactly, then by file."""
    from pyspark.sql import functions as F
    in_split = [F.col("block") == k * split for k in range(splits)]
    sums = {f"count_{k}": F.count_if(where) for k, where in enumerate(in_split)}
    sums.update(bytes=F.sum(F.octet_length("raw") + 1), headers=F.count_if("is_header"), orders=F.count("order_id"),
                hashes=spark_hash_sum(F.col("row_hash")))
    mins = {f"first_{k}": F.min(F.when(where, F.col("at"))) for k, where in enumerate(in_split)}
    mins.update(lowest=F.min("order_id"), refused=F.min(F.when(F.col("refused"), F.struct("block", "at"))),
                opens=F.min(F.when(F.col("opens"), F.struct("block", "at"))))
    buckets = lines.groupBy("day", F.bitmap_bucket_number("order_id")).agg(
        *(value.alias(name) for name, value in {**sums, **mins}.items()), F.max("order_id").alias("highest"),
        F.bitmap_construct_agg(F.bitmap_bit_position("order_id")).alias("ids"))
    return buckets.groupBy("day").agg(
        F.array(*(F.sum(f"count_{k}") for k in range(splits))), F.array(*(F.min(f"first_{k}") for k in range(splits))),
        F.sum("bytes"), F.sum("headers"), F.sum("orders"), F.min("lowest"), F.max("highest"),
        F.sum(F.bitmap_count("ids")), F.min("refused"), F.min("opens"), F.sum("hashes"))


def layout(spark, scan: Scan) -> Scan:
    """scan's file as a query over it alone finds it (another query): its lines in each split, the place
    of each split's first line in its task, whether it ends in LF."""
    from pyspark.sql import functions as F
    if scan.alone is None:
        with splits_of(spark, scan.split):
            rows = sorted(split_lines(spark, [day_file(scan.day)]).groupBy("block")
                          .agg(F.count("*"), F.min("at"), F.sum(F.octet_length("raw") + 1)).collect())
        scan.alone = dataclasses.replace(scan, counts=[row[1] for row in rows], firsts=[row[2] for row in rows])
        scan.alone.ends = scan.whole(sum(row[3] for row in rows))
    return scan.alone


def lines_from(spark, scan: Scan, start: int, count: int) -> list:
    """The bytes of count lines of scan's file from line start on (another query over the file)."""
    from pyspark.sql import functions as F
    alone = layout(spark, scan)
    if not scan.counts:  # only line 1 was known
        scan.counts, scan.ends = alone.counts, alone.ends
    wanted, before = F.lit(False), 0
    for number, (lines, first) in enumerate(zip(alone.counts, alone.firsts)):
        low, high = max(start, before + 1) - before - 1, min(start + count - 1, before + lines) - before - 1
        if low <= high:
            wanted |= (F.col("block") == number * scan.split) & F.col("at").between(first + low, first + high)
        before += lines
    with splits_of(spark, scan.split):
        rows = split_lines(spark, [day_file(scan.day)]).where(wanted).orderBy("block", "at").select("raw").collect()
    return [row.raw for row in rows]


def repeated_header(spark, scan: Scan) -> int:
    """The line of the first split that holds the header's bytes again, after line 1 (another query)."""
    from pyspark.sql import functions as F
    alone = layout(spark, scan)
    with splits_of(spark, scan.split):
        at = (split_lines(spark, [day_file(scan.day)])
              .where((F.col("block") == 0) & (F.col("raw") == F.lit(bytearray(scan.line_one)))
                     & (F.col("at") > alone.firsts[0])).agg(F.min("at")).first()[0])
    return alone.line(0, at)


def first_twice(spark, scan: Scan) -> tuple:
    """(line, order id) of the first line whose id an earlier line of scan's file holds (another query)."""
    from pyspark.sql import Window, functions as F
    alone = layout(spark, scan)
    orders = (checked_lines(spark, [day_file(scan.day)], scan.columns, scan.line_one)
              .where(F.col("order_id").isNotNull()))
    nth = F.row_number().over(Window.partitionBy("order_id").orderBy("block", "at"))
    with splits_of(spark, scan.split):
        first = (orders.select("block", "at", "order_id", nth.alias("nth")).where("nth = 2")
                 .agg(F.min(F.struct("block", "at", "order_id")).alias("first")).first().first)
    return (alone.line(first.block, first.at), first.order_id) if first else (math.inf, None)


def id_line(spark, path, columns: list, size: int, order_id: int) -> int:
    """The line of a file (its header names columns) that holds order_id, 0 if none (another query)."""
    from pyspark.sql import functions as F
    with splits_of(spark, split_size(spark, size)):
        rows = (checked_lines(spark, [path], columns).groupBy("block")
                .agg(F.count("*"), F.min("at"), F.min(F.when(F.col("order_id") == order_id, F.col("at")))).collect())
    before = 0
    for _, lines, first, at in sorted(rows):
        if at is not None:
            return before + at - first + 1
        before += lines
    return 0
