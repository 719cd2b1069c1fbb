"""Big day files checked inside Spark, by in_python's rules and with its words: the Spark path.

    from shoptoolkit.till.in_spark import checked_day, checked_in_spark
    found = checked_day(spark, "2026-09-15")    # a DayFile, or its file's refusal raised
    checked_in_spark(spark, days)               # {day: Checked} for the files of a commit

From SPARK_CHECK_BYTES of files on (a day's, or a commit's together), Python streams each file once
for its size, sha256 and line 1 (in_python.fingerprint: a MiB at a time, no file held whole) and
checks each header; then Spark reads the files, through its own file system layer, in one query,
line_scan.count_lines (all the files in splits, several tasks a big file), which brings back a row a
file: its lines, its ids' count and range,
its first refused line and the first that opens a quoted field it does not close. Python then checks
that one line with in_python's own functions, which word the refusal as the Python path does. No
id and no other line comes back; a refused file may cost another query (line_scan.py).
"""
import csv
import hashlib
import math
from dataclasses import dataclass

from shoptoolkit.errors import ToolkitError
from shoptoolkit.row_values import spark_digest
from shoptoolkit.storage.project_paths import BIG_FILES, day_file, files_bytes
from shoptoolkit.till.day_frames import split_size
from shoptoolkit.till.in_python import DayFile, decoded_lines, fingerprint, line_of_id, numbered_rows, read_day_file
from shoptoolkit.till.line_rules import checked_order, read_header, twice
from shoptoolkit.till.line_scan import Scan, count_lines, first_twice, id_line, lines_from

# From this many bytes of files (a day's, or a commit's together) the check runs in Spark; below it, in
# Python: project_paths.BIG_FILES, the crossover measured in docs/benchmarks.md.
SPARK_CHECK_BYTES = BIG_FILES
MORE_LINES = 1000  # lines fetched at a time for a record that runs over several lines


@dataclass
class Checked:
    """A file as the Spark check found it: its DayFile when it passes, else the refusal; its sha256."""
    found: DayFile = None
    refusal: ToolkitError = None
    sha256: str = ""


class MoreLines(Exception):
    """The record being read goes on past the lines at hand."""


def spark_sized(days) -> bool:
    """Whether the files of days (those that exist) are big enough together to be checked in Spark."""
    return big_enough(files_bytes(days))


def big_enough(size: int) -> bool:
    """Whether files of size bytes in all are checked in Spark rather than in Python."""
    return size >= spark_check_bytes()


def spark_check_bytes() -> int:
    """From this many bytes a file is checked in Spark (SPARK_CHECK_BYTES, read when asked)."""
    return SPARK_CHECK_BYTES


def checked_day(spark, day, digest: bool = True, facts=None) -> DayFile:
    """day's file checked in Python, or in Spark from SPARK_CHECK_BYTES on; its refusal is raised. Without
    digest, Spark does not hash its rows (a check compares them otherwise) and its rows_digest is ''.
    facts: the file's FileFacts when the caller read it already (its bytes are checked, not read again)."""
    if not (big_enough(facts.size) if facts else spark_sized([day])):
        return read_day_file(day, data=facts.data if facts else None)
    known = {day: (facts.size, facts.sha256, facts.first)} if facts else None
    checked = checked_in_spark(spark, [day], digest, known)[day]
    if checked.refusal:
        raise checked.refusal
    return checked.found


def checked_in_spark(spark, days, digest: bool = True, known=None) -> dict:
    """{day: Checked} for the files of days (each must exist): their facts streamed in Python (or known:
    {day: (size, sha256, line 1)} a caller took already), then all the lines of the files whose header
    passes in one query (with digest, their rows' digest too)."""
    facts = {day: (known or {}).get(day) or fingerprint(day_file(day)) for day in days}
    facts = {str(day): found for day, found in facts.items() if found[0]}  # an empty file: empty_file
    split = split_size(spark, sum(size for size, _, _ in facts.values()))
    verdicts, scans = {}, []
    for day in days:
        if str(day) not in facts:
            verdicts[day] = empty_file(day)
            continue
        scan = Scan(day, *facts[str(day)], split, digest=digest)
        try:
            header = first_record(spark, scan, 1, [scan.header])
            scan.columns = read_header(iter([header] if header else []), day_file(day))
            scans.append(scan)
        except ToolkitError as refusal:
            verdicts[day] = Checked(None, refusal, scan.sha256)
    count_lines(spark, scans)
    verdicts.update({scan.day: file_verdict(spark, scan) for scan in scans})
    return {day: verdicts[day] for day in days}


def empty_file(day) -> Checked:
    """Spark lists no empty (0-byte) file: its refusal, as read_header words it."""
    try:
        read_header(iter([]), day_file(day))
    except ToolkitError as refusal:
        return Checked(None, refusal, hashlib.sha256(b"").hexdigest())


def file_verdict(spark, scan: Scan) -> Checked:
    """The Checked of one file from its scan: its first problem's line checked again in Python, which
    words the refusal; were the two checks to disagree, the Python check decides. They do for a last
    line, without LF, that opens a quoted field: csv closes it at the file's end, the query cannot know."""
    found = DayFile(day_file(scan.day), scan.columns, None, scan.size, scan.sha256, scan.orders,
                    scan.lowest, scan.highest, None, spark_digest(scan.hashes) if scan.digest else "")
    try:
        if refuse_first(spark, scan, found):
            return Checked(read_day_file(scan.day), None, scan.sha256)
    except ToolkitError as refusal:
        return Checked(None, refusal, scan.sha256)
    return Checked(found, None, scan.sha256)


def refuse_first(spark, scan: Scan, found: DayFile) -> bool:
    """Raise the refusal of the file's first problem, worded by in_python; True when the line the
    Spark check refused passes the Python check (they disagree), False when there is no problem."""
    refused_at = scan.refused or math.inf
    opens_at = scan.opens or math.inf
    twice_at, twice_id = first_twice(spark, scan) if scan.distinct < scan.orders else (math.inf, None)
    if twice_at < min(refused_at, opens_at):  # a refused line at the same place is refused first
        raise twice(found.path, twice_at, twice_id)
    first = min(refused_at, opens_at)
    if first == math.inf:
        return False
    raws = lines_from(spark, scan, first, 1 if first == refused_at else MORE_LINES)
    line, record = first_record(spark, scan, first, raws)
    checked_order(record, found, scan.day, line, set())
    return True


def first_record(spark, scan: Scan, start: int, raws: list):
    """(line, fields) of the csv record that starts at line start (raws: that line's bytes and perhaps the
    next ones'), as read_day_file reads it, or None at the file's end; more lines are fetched from Spark
    while the record goes on. Not UTF-8, or a line csv refuses, is raised as read_day_file raises it."""
    path = day_file(scan.day)
    while True:
        try:
            rows = numbered_rows(csv.reader(decoded_lines(at_hand(raws, start, scan), path, first=start)),
                                 path, start - 1)
            return next(rows, None)
        except MoreLines:
            raws = lines_from(spark, scan, start, 8 * len(raws) + MORE_LINES)


def at_hand(raws: list, start: int, scan: Scan):
    """The lines raws as the file holds them (with their LF, but for a last line without one); MoreLines
    when csv asks for a line past them that the file has."""
    for number, raw in enumerate(raws, start=start):
        yield bytes(raw) + (b"\n" if number < scan.lines or scan.ends else b"")
    if start + len(raws) <= scan.lines:
        raise MoreLines


def line_of(spark, found: DayFile, order_id: int) -> int:
    """The line of a checked file that holds order_id: line_of_id for a file checked in Python, a
    Spark query for one checked in Spark (its ids never came to Python)."""
    if found.order_ids is not None:
        return line_of_id(found, order_id)
    return id_line(spark, found.path, found.columns, found.size, order_id)
