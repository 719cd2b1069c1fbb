"""The pipeline's (pipelines/orders.py) look at line 1 of every landing file before a run: its flows read
each file with the till's columns, one schema for every file of a run, so a file whose header is not the
till's is refused here, in load_day's words, before spark-pipelines starts (docs/new_columns.md).

    from shoptoolkit.till.pipeline_headers import refuse_other_headers
    refuse_other_headers(landing)    # ToolkitError: landing/orders/2026-09-20.csv line 1: unexpected column ...

A new column is refused whatever SHOP_ON_NEW_COLUMN says: the scripts take it (add, rescue), the pipeline
does not. A header the scripts refuse (no header, a column missing or renamed) is refused in their words.
"""
import csv
from pathlib import Path

from shoptoolkit.table_schema import COLUMNS
from shoptoolkit.till.in_python import decoded_lines, numbered_rows
from shoptoolkit.till.line_rules import bad_line, read_header
from shoptoolkit.till.new_columns import MODE_ENV, NewColumns, using


def refuse_other_headers(landing: Path) -> None:
    """A ToolkitError for the first file (by name) of landing/*.csv whose header is not the till's."""
    for path in sorted(Path(landing).glob("*.csv")):
        with path.open("rb") as raw:
            line = raw.readline()
        if not line or till_header(line):  # empty, or the till's columns, as nearly every day
            continue
        with using(NewColumns("check")):  # any column passes read_header's words; refused below
            columns = read_header(numbered_rows(csv.reader(decoded_lines([line], path)), path), path)
        new = [name for name in columns if name not in COLUMNS]
        if new:
            raise bad_line(path, 1, f"unexpected column {', '.join(new)} (expected {','.join(COLUMNS)}); the "
                                    f"pipeline reads the till's columns only, whatever --on-new-column or "
                                    f"{MODE_ENV} says: load_day.py --on-new-column add or rescue loads it")


def till_header(line: bytes) -> bool:
    """Whether line 1 (its bytes) names the till's columns in their order, as the flows read them."""
    return line.decode("utf-8", "replace").lstrip("\ufeff").strip().split(",") == list(COLUMNS)
