"""The rules of a landing file's lines, with their words (docs/bad_input.md): its header, each order's
width and fields, an id twice. An order's field rules are one table, RULES: in_python.py checks a line
by walking it, rules_sql.py makes the Spark path's expression from the same entries, and
tests/till/test_bad_input.py holds the two paths to the same answers and words.

    check_row({"order_id": "x", ...}, 4, found, day, 7)   # ToolkitError: landing/orders/... line 7: order_id 'x' ...
"""
import datetime as dt
import functools
import re
from dataclasses import dataclass
from typing import Callable

from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import shown
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, RESCUED
from shoptoolkit.till.new_columns import MODE_ENV, current

ORDER_ID = re.compile(r"\d{1,18}")
AMOUNT = re.compile(r"-?\d{1,10}(\.\d{1,2})?")
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
DATE = re.compile("[0-9]{4}-[0-9]{2}-[0-9]{2}")
NAME = re.compile("[A-Za-z_][A-Za-z0-9_]*")
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
    "a date": lambda value, rule, day: value == "" or is_date(value),
}


def read_header(rows, path) -> list:
    """The header's column names (rows: numbered_rows); a file with no header or a bad one is refused,
    and so is a column the table does not have unless the load's setting (new_columns.py) takes it."""
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
    if missing or len(set(names)) != len(names):
        problem = "; ".join(filter(None, [missing and f"missing column {', '.join(missing)}",
                                          extra and f"unexpected column {', '.join(extra)}"]))
        renamed = ": a column renamed or dropped is refused whatever --on-new-column says" if missing and extra else ""
        raise bad_line(path, 1, f"{problem or 'a column twice'} (expected {','.join(COLUMNS)}){renamed}")
    setting = current()
    if setting.mode == "fail" and setting.new(extra):
        raise bad_line(path, 1, f"unexpected column {', '.join(setting.new(extra))} (expected {','.join(COLUMNS)}); "
                                f"--on-new-column add or rescue (or {MODE_ENV}) would load it")
    for raw, name in zip(header, names):
        if name in extra:
            refuse_new_column(path, raw, name, setting, names)
    return names


def refuse_new_column(path, raw: str, name: str, setting, names: list) -> None:
    """A column the till's file adds, which the setting takes: refused when Delta could not hold it
    as a column of its own (a space at a name's ends, a character beyond letters, digits and _, a name
    that is a table column's or another of names's in another case, or one the table keeps for itself)."""
    own = (*COLUMNS, PARTITION_COLUMN, RESCUED, *setting.table)
    taken = {one.lower(): one for one in (*(one for one in names if one != name), *own)}
    if raw != name:
        problem = f"column name {raw!r} has a space at its ends"
    elif not NAME.fullmatch(name):
        problem = f"column name {name!r} is not one Delta takes as it is (letters, digits and _, not a digit first)"
    elif name in (PARTITION_COLUMN, RESCUED):
        problem = f"column {name} is a name the table keeps for itself"
    elif name.lower() in taken and taken[name.lower()] != name:
        other = taken[name.lower()]
        problem = (f"column {name} differs from the {'table' if other in own else 'file'}'s column {other} "
                   f"only in case (Delta's column names are case-insensitive)")
    else:
        return
    raise bad_line(path, 1, problem)


def rules_for(types: dict) -> tuple:
    """RULES, then the rule of each new column's declared type (types: column_types')."""
    return RULES + tuple(rule for name, type_ in types.items() for rule in typed_rule(name, type_))


def column_types(columns) -> dict:
    """{name: type} of columns beyond the till's own, as the setting in force types them."""
    setting = current()
    return {name: setting.type_of(name) for name in columns if name not in COLUMNS}


@functools.lru_cache(maxsize=64)
def typed_rule(name: str, type_: str) -> tuple:
    """(the rule of a new column's type,), () for a STRING: an empty value (null) passes every type."""
    if type_.startswith("DECIMAL"):
        digits, scale = map(int, re.findall(r"\d+", type_))
        fraction = rf"(?:\.[0-9]{{1,{scale}}})?" if scale else ""
        like = "19." + "9" * scale if scale else "19"
        return (Rule(name, "matches", lambda value, day: f"{name} {value!r} is not a number like {like}",
                     re.compile(rf"(?:-?[0-9]{{1,{digits - scale}}}{fraction})?")),)
    if type_ in ("INT", "BIGINT"):
        return (Rule(name, "matches", lambda value, day: f"{name} {value!r} is not a whole number",
                     re.compile(rf"(?:-?[0-9]{{1,{9 if type_ == 'INT' else 18}}})?")),)
    if type_ == "BOOLEAN":
        return (Rule(name, "matches", lambda value, day: f"{name} {value!r} is not true or false",
                     re.compile("(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])?")),)
    if type_ == "DATE":
        return (Rule(name, "a date", lambda value, day: f"{name} {value!r} is not a date like {day}", DATE),)
    return ()


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
    for rule in found.rules:
        if not PASSES[rule.kind](row[rule.column], rule, day):
            raise bad_line(found.path, line, rule.words(row[rule.column], day))
    return int(row["order_id"])


def refuse_control(path, line: int, name: str, value: str) -> None:
    """A field holding a control character is refused; repr shows it escaped (`\\x1b`), never raw."""
    found = CONTROL.search(value)
    if found:
        raise bad_line(path, line, f"{name} {value!r} holds a control character ({found.group()!r})")


def is_date(text: str) -> bool:
    """YYYY-MM-DD, a real date."""
    return bool(DATE.fullmatch(text)) and is_timestamp(f"{text}T00:00:00")


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
