"""What a load does with a column of the till's file that the table does not have (docs/new_columns.md),
named once, and the type a new column is declared with.

    from shoptoolkit.till.new_columns import NewColumns, using
    with using(NewColumns("add", {"discount": "DECIMAL(10,2)"})):   # else SHOP_ON_NEW_COLUMN, SHOP_COLUMN_TYPES
        ...

  fail    (the default) a file with a column the table lacks is refused, its line naming this setting
  add     the table gains the column in the load's own commit (Delta's mergeSchema on the replaceWhere write)
  rescue  the table keeps its columns; the file's unknown ones go, a row at a time, into RESCUED as JSON
A new column is a STRING unless declared (Auto Loader's schema hints: `channel STRING, discount
DECIMAL(10,2)`); a column the table has keeps the table's type. Checks take the table's (mode "check").
"""
import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from shoptoolkit.errors import UsageError
from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, RESCUED

MODES = ("fail", "add", "rescue")
MODE_ENV, TYPES_ENV = "SHOP_ON_NEW_COLUMN", "SHOP_COLUMN_TYPES"
TYPE = r"STRING|DATE|BOOLEAN|INT|INTEGER|BIGINT|DECIMAL\(\s*\d{1,2}\s*,\s*\d{1,2}\s*\)"
HINT = re.compile(rf"\s*([A-Za-z_][A-Za-z0-9_]*)\s+({TYPE})\s*(,|$)", re.IGNORECASE)
SETTING = ContextVar("new_columns", default=None)  # a load's or a check's own, else the environment's


@dataclass(frozen=True)
class NewColumns:
    """mode: one of MODES, or "check" (a check takes any column, typed as the table holds it); declared:
    {name: type} of new columns; table: {name: Spark type} of the table's columns beyond the till's own."""
    mode: str = "fail"
    declared: dict = field(default_factory=dict)
    table: dict = field(default_factory=dict)

    def type_of(self, name: str) -> str:
        """A file's extra column's type: the table's, else its declaration (not for a rescued one), else STRING."""
        if name in self.table:
            return self.table[name]
        return "STRING" if self.mode == "rescue" else self.declared.get(name, "STRING")

    def rescued(self, extras) -> list:
        """The extra columns a load of mode rescue keeps in RESCUED: those the table does not have."""
        return sorted(name for name in extras if name not in self.table) if self.mode == "rescue" else []

    def new(self, extras) -> list:
        """The extra columns the table does not have."""
        return [name for name in extras if name not in self.table]

    def absent(self, columns) -> list:
        """The table's new columns (RESCUED aside) that a file of these columns lacks: its rows hold null there."""
        return [name for name in self.table if name != RESCUED and name not in columns]

    def added(self, types: dict) -> dict:
        """{name: type} of the columns a load of a file with these new columns (types) adds to the table."""
        rescued = self.rescued(types)
        added = {name: types[name] for name in self.new(types) if name not in rescued}
        return {**added, RESCUED: "STRING"} if rescued and RESCUED not in self.table else added


def parse_types(text: str) -> dict:
    """{name: TYPE} from `channel STRING, discount DECIMAL(10,2)`; ValueError naming what is not so."""
    found, place = {}, 0
    while place < len(text.rstrip()):
        hint = HINT.match(text, place)
        if not hint or (hint.group(3) == "," and not text[hint.end():].strip()):
            raise ValueError(f"{text[place:].strip()!r} is not a column and its type like "
                             f"`discount DECIMAL(10,2)` (types: STRING, DATE, BOOLEAN, INT, BIGINT, DECIMAL(p,s))")
        found[hint.group(1)] = re.sub(r"\s+", "", hint.group(2)).upper().replace("INTEGER", "INT")
        place = hint.end()
    return found


def from_env() -> NewColumns:
    """The setting of SHOP_ON_NEW_COLUMN and SHOP_COLUMN_TYPES (read when asked, as SHOP_ROOT is)."""
    mode = os.environ.get(MODE_ENV) or "fail"
    if mode not in MODES:
        raise UsageError(f"{MODE_ENV}={mode!r} is not one of {', '.join(MODES)}")
    try:
        return NewColumns(mode, parse_types(os.environ.get(TYPES_ENV) or ""))
    except ValueError as error:
        raise UsageError(f"{TYPES_ENV}: {error}") from None


def current() -> NewColumns:
    """The setting in force: a load's or a check's (using), else the environment's."""
    return SETTING.get() or from_env()


@contextmanager
def using(setting: NewColumns):
    """setting in force while inside (in this thread only: runs at once each have their own)."""
    token = SETTING.set(setting)
    try:
        yield setting
    finally:
        SETTING.reset(token)


def setting_for(mode=None, types=None, table: dict = None) -> NewColumns:
    """A load's setting: mode and types (a dict or a DDL fragment) where given, else the environment's;
    table: the table's extra columns."""
    env = from_env()
    declared = parse_types(types) if isinstance(types, str) else types
    if mode is not None and mode not in MODES:
        raise UsageError(f"on_new_column={mode!r} is not one of {', '.join(MODES)}")
    return NewColumns(mode or env.mode, env.declared if declared is None else declared, table or {})


def table_extras(schema) -> dict:
    """{name: Spark type} of a table schema's (a StructType's) columns beyond the till's and the day's."""
    return {one.name: one.dataType.simpleString().upper() for one in schema.fields
            if one.name not in (*COLUMNS, PARTITION_COLUMN)}


def checking(table) -> NewColumns:
    """A check's setting: a file may have any column, typed as the table (a frame, or None) holds it."""
    return NewColumns("check", {}, table_extras(table.schema) if table is not None else {})


def set_new_columns(mode: str = None, types: str = None) -> None:
    """Make mode and types this process's setting, and its children's (as set_root does the root)."""
    if mode:
        os.environ[MODE_ENV] = mode
    if types is not None:
        os.environ[TYPES_ENV] = types
