"""The rules of a landing file's lines, with their words (docs/bad_input.md): its header, each order's
width and fields, an id twice. An order's field rules are one table, RULES: in_python.py checks a line
by walking it, rules_sql.py makes the Spark path's expression from the same entries, and
tests/till/test_bad_input.py holds the two paths to the same answers and words.

    check_row({"order_id": "x", ...}, 4, found, day, 7)   # ToolkitError: landing/orders/... line 7: order_id 'x' ...
"""
import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable

from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import shown
from shoptoolkit.table_schema import COLUMNS

ORDER_ID = re.compile(r"\d{1,18}")
AMOUNT = re.compile(r"-?\d{1,10}(\.\d{1,2})?")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
# Control characters (Unicode's Cc: C0, DEL, C1): a field holding one (ESC, BEL, NUL, tab, a line end
# inside quotes, ...) is refused and shown escaped, so that a bad file cannot repaint the terminal of
# whoever reads the refusal.
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True)
class Rule:
    """One rule of an order's field: the column it reads, its kind (how a value passes: PASSES here,
    rules_sql.SPARK_PASSES inside Spark, both from pattern), and the words of a refusal, from the value
    and the file's day."""
    column: str
    kind: str
    words: Callable[[str, dt.date], str]
    pattern: re.Pattern = None


# Every rule of an order's fields, in the order a line is checked (the first one it breaks is named).
# A new rule is one entry here and its line in docs/bad_input.md; a new kind is one function on each path,
# which tests/till/test_bad_input.py holds to the same answers on generated values.
RULES = (
    Rule("order_id", "matches", lambda value, day: f"order_id {value!r} is not a whole number", ORDER_ID),
    Rule("amount", "matches", lambda value, day: f"amount {value!r} is not a number like 19.99", AMOUNT),
    Rule("amount", "not negative", lambda value, day: f"amount {value} is negative"),
    Rule("customer_id", "not blank", lambda value, day: "customer_id is empty"),
    Rule("ordered_at", "a time on the day",
         lambda value, day: (f"ordered_at {value} is not on {day}" if is_timestamp(value)
                             else f"ordered_at {value!r} is not a timestamp like {day}T20:30:00"), TIMESTAMP),
)
PASSES = {
    "matches": lambda value, rule, day: bool(rule.pattern.fullmatch(value)),
    "not negative": lambda value, rule, day: not value.startswith("-"),
    "not blank": lambda value, rule, day: bool(value.strip()),
    "a time on the day": lambda value, rule, day: is_timestamp(value) and value[:10] == day.isoformat(),
}


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


def checked_order(row: list, found, day: dt.date, line: int, seen: set) -> int:
    """Check one line's order and that no earlier line holds its id; return the id, added to seen."""
    order_id = check_row(dict(zip(found.columns, row)), len(row), found, day, line)
    if order_id in seen:
        raise twice(found.path, line, order_id)
    seen.add(order_id)
    return order_id


def twice(path, line: int, order_id: int) -> ToolkitError:
    return bad_line(path, line, f"order_id {order_id} appears twice in the file")


def check_row(row: dict, width: int, found, day: dt.date, line: int) -> int:
    """Check one order, its width, its control characters, then each rule of RULES in turn; return its id."""
    if width != len(found.columns):
        raise bad_line(found.path, line, f"{width} fields, expected {len(found.columns)}")
    for name in found.columns:
        refuse_control(found.path, line, name, row[name])
    for rule in RULES:
        if not PASSES[rule.kind](row[rule.column], rule, day):
            raise bad_line(found.path, line, rule.words(row[rule.column], day))
    return int(row["order_id"])


def refuse_control(path, line: int, name: str, value: str) -> None:
    """A field holding a control character is refused; repr shows it escaped (`\\x1b`), never raw."""
    found = CONTROL.search(value)
    if found:
        raise bad_line(path, line, f"{name} {value!r} holds a control character ({found.group()!r})")


def is_timestamp(text: str) -> bool:
    """YYYY-MM-DDTHH:MM:SS, a real date and time."""
    if not TIMESTAMP.fullmatch(text):
        return False
    try:
        dt.datetime.fromisoformat(text)
        return True
    except ValueError:
        return False


def bad_line(path, line: int, problem: str) -> ToolkitError:
    return ToolkitError(f"{shown(path)} line {line}: {problem}")
