"""orders_daily in the model check: every version of the table as plain Python, and the writes that
make them, each worked out from the docs (README, docs/commits.md, docs/reprocess.md).

A version holds each day's rows, the lineage of the load those rows come from (after a restore to
version N: the day's at N), the columns loads added (docs/new_columns.md), and whether the table is
partitioned. A write is a Step: evaluated on the
model as it is when it commits, it gives an Outcome, the new version and its history entry, or the
reasons its runs were refused.
"""
import json
from dataclasses import dataclass, field, replace

from model.till import (HEADER, RESCUED, check_file, columns_of, file_bytes, file_sha256, line_of, opened,
                        rows_digest, shown)

TABLE_MISSING = ("no Delta table at lake/orders_daily: load a day first "
                 "(python load_day.py RUN_DATE or python backfill.py FIRST LAST)")


@dataclass(frozen=True)
class Version:
    table: dict          # day -> sorted tuple of rows (order_id, customer_id, amount, ordered_at, 'YYYY-MM-DD',
                         # extras: the values of the columns below, (column, value) pairs without the nulls)
    loaded: dict         # day -> the lineage entry of the load its rows come from
    partitioned: bool = False
    window: bool = False  # upkeep set the undo window, a table property every later write keeps
    columns: tuple = ()  # (name, type) of the columns loads added to the till's, in the order they were added

    def names(self) -> list:
        return [name for name, _ in self.columns]

    def total(self) -> int:
        return sum(map(len, self.table.values()))


@dataclass
class Outcome:
    """What one write makes of the model: a new version (None: nothing committed) and why runs were refused."""
    version: Version = None
    entry: dict = None
    refused: dict = field(default_factory=dict)   # run date -> the one line it was refused with
    loaded: list = field(default_factory=list)    # (run date, day, rows) of the days written
    line: str = ""                                # what the write prints when it lands (restore, partition)


class TableModel:
    """Every version of orders_daily and its history entry; versions[-1] is the table now."""

    def __init__(self, till):
        self.till, self.versions, self.entries = till, [], []

    @property
    def now(self):
        return self.versions[-1] if self.versions else None

    def commit(self, outcome: Outcome) -> None:
        """Adopt a write that landed: its version becomes the newest."""
        self.entries.append({**outcome.entry, "version": len(self.versions)})
        self.versions.append(outcome.version)


def lineage_entry(run_date, day, content, added: dict = None, absent: list = None) -> dict:
    """What a load of day from a file of this content records (docs/reprocess.md): added, the columns the
    load gave the table; absent, the table's new columns the file lacks (docs/new_columns.md)."""
    orders = check_file(day, content).orders
    ids = [order[0] for order in orders]
    entry = {"run_date": str(run_date), "day": str(day), "file": shown(day), "size": len(file_bytes(content)),
             "sha256": file_sha256(content), "rows_read": len(ids), "rows_written": len(ids),
             "lowest": min(ids, default=None), "highest": max(ids, default=None), "rows_digest": rows_digest(orders)}
    return {**entry, **({"columns_added": added} if added else {}), **({"columns_absent": absent} if absent else {})}


def row_values(row) -> tuple:
    """(id, customer, amount, time, extras) of a table's row, its extras as the checks compare them."""
    return (*row[:4], opened(row[5]))


def new_columns(content, names: list) -> list:
    """The file's columns beyond the till's that the table (the columns names) does not have."""
    return [name for name in columns_of(content)[4:] if name not in names]


def clashes(table: dict, day, orders) -> list:
    """(order id, day) of this file's ids that the table holds on another day, sorted."""
    ids = {order[0] for order in orders}
    return sorted({(row[0], other) for other, rows in table.items() if other != str(day)
                   for row in rows if row[0] in ids})


def refusal(till, run_date, day, table: dict, names: list = (), mode: str = "fail") -> str:
    """Why a load of day is refused on a table holding table, of the new columns names ('' when it loads),
    as load_day says it, in mode (--on-new-column); a commit of several days (commit_days.py) the same."""
    lines = till.files.get(day)
    if lines is None:
        return f"no file {shown(day)} for run {run_date}"
    new = new_columns(lines, names)
    if mode == "fail" and new:
        return (f"{shown(day)} line 1: unexpected column {', '.join(new)} (expected {HEADER}); "
                f"--on-new-column add or rescue (or SHOP_ON_NEW_COLUMN) would load it")
    checked = check_file(day, lines)
    if checked.error:
        return checked.error
    clash = clashes(table, day, checked.orders)
    if not clash:
        return ""
    listed = ", ".join(f"{order_id} (on {on})" for order_id, on in clash[:5])
    return f"{shown(day)} line {line_of(lines, clash[0][0])}: order_id already stored on another day: {listed}"


def added_columns(content, names: list, mode: str) -> dict:
    """{name: type} of the columns a load of this file adds in mode: add, its new ones (as STRING); rescue,
    RESCUED for them, unless the table has it."""
    new = new_columns(content, names)
    if mode == "rescue":
        return {RESCUED: "STRING"} if new and RESCUED not in names else {}
    return {name: "STRING" for name in new} if mode == "add" else {}


def stored(extras, rescued: list) -> tuple:
    """An order's extra values as the table holds them: a column's own, the rescued ones as RESCUED's JSON."""
    own = [(name, value) for name, value in extras if name not in rescued]
    kept = {name: value for name, value in extras if name in rescued}
    return tuple(sorted(own + ([(RESCUED, json.dumps(kept, separators=(",", ":")))] if kept else [])))


def load_outcome(model, runs, clash_table: dict = None, mode: str = "fail", several: bool = False) -> Outcome:
    """The days of runs [(run date, day)] in one commit, each refused as runs one after another would
    refuse it (its file missing or bad, or one of its ids on another day as the table then would be).
    clash_table: the ids are checked against this table (and the commit's own days) instead, as a write
    whose id check read an older version does (late_clash.py). mode: --on-new-column; several: a commit
    of several days' runs (backfill.py --days-per-commit, commit_days.py): each day's new columns are
    those the table lacked before the commit, and a day lacks each column the table has after it."""
    now = model.now or Version({}, {})
    table, loaded, outcome, columns = dict(now.table), dict(now.loaded), Outcome(), dict(now.columns)
    checked = table if clash_table is None else dict(clash_table)
    kept = []
    for run_date, day in runs:
        why = refusal(model.till, run_date, day, checked, now.names(), mode)
        if why:
            outcome.refused[run_date] = why
            continue
        lines = model.till.files[day]
        added = added_columns(lines, now.names(), mode)
        rescued = new_columns(lines, now.names()) if mode == "rescue" else []
        columns.update(added)
        rows = tuple(sorted((*order[:4], str(day), stored(order[4], rescued))
                            for order in check_file(day, lines).orders))
        table[str(day)] = checked[str(day)] = rows
        kept.append((run_date, day, lines, added))
        outcome.loaded.append((run_date, day, len(rows)))
    for run_date, day, lines, added in kept:
        absent = [name for name in columns if name != RESCUED and name not in columns_of(lines)]
        loaded[str(day)] = lineage_entry(run_date, day, lines, added, absent)
    if outcome.loaded:
        outcome.version = replace(now, table={day: rows for day, rows in table.items() if rows}, loaded=loaded,
                                  columns=tuple(columns.items()))
        outcome.entry = load_entry([loaded[str(day)] for _, day, _ in outcome.loaded])
    return outcome


def load_entry(entries: list) -> dict:
    """The history entry of a commit of these days' loads: load_day's for one, load_days' for several."""
    days = [entry["day"] for entry in entries]
    if len(days) == 1:
        predicate, lineage = f"order_date = DATE'{days[0]}'", entries[0]
    else:
        predicate = "order_date IN (" + ", ".join(f"DATE'{day}'" for day in days) + ")"
        lineage = {"days": entries}
    return {"operation": "WRITE", "predicate": predicate, "lineage": json.loads(json.dumps(lineage)),
            "rows_written": sum(entry["rows_written"] for entry in entries), "note": ""}


def days_between(first_day, last_day) -> list:
    """The days from first_day to last_day, as the table's keys ('YYYY-MM-DD')."""
    from shoptoolkit.dates import run_dates
    return [str(day) for day in run_dates(first_day, last_day)]


def restore_outcome(model, first_day, last_day, version: int) -> Outcome:
    """restore_day: the days from first_day to last_day as at version, in one commit."""
    if model.now is None:
        return Outcome(refused={None: TABLE_MISSING})
    if not 0 <= version < len(model.versions):
        return Outcome(refused={None: f"version {version} does not exist: orders_daily has versions 0 to "
                                      f"{len(model.versions) - 1} (python history.py lists them)"})
    now, then, days = model.now, model.versions[version], days_between(first_day, last_day)
    table = {day: rows for day, rows in now.table.items() if day not in days}
    table.update({day: then.table[day] for day in days if day in then.table})
    loaded = {day: entry for day, entry in now.loaded.items() if day not in days}
    loaded.update({day: then.loaded[day] for day in days if day in then.loaded})
    label = days[0] if len(days) == 1 else f"{days[0]} .. {days[-1]}"
    predicate = (f"order_date = DATE'{days[0]}'" if len(days) == 1
                 else f"order_date >= DATE'{days[0]}' AND order_date <= DATE'{days[-1]}'")
    written = sum(len(then.table.get(day, ())) for day in days)
    before = sum(len(now.table.get(day, ())) for day in days)
    after = replace(now, table=table, loaded=loaded)
    return Outcome(after, {"operation": "WRITE", "predicate": predicate, "rows_written": written, "lineage": {},
                           "note": f"restore_day: {label} from version {version}"},
                   line=f"restored {label} from version {version} ({before} rows -> {written}); "
                        f"orders_daily has {after.total()}, version {len(model.versions)}"
                        f"{kept_columns([name for name in now.names() if name not in then.names()], label, version)}")


def kept_columns(names: list, label: str, version: int) -> str:
    """What restore_day's line adds for the table's columns the version had not: they stay, null on its days."""
    if not names:
        return ""
    plural = len(names) > 1
    return (f"; {', '.join(names)} {'are' if plural else 'is'} null on {label}: version {version} had no such "
            f"column{'s' if plural else ''}, and Delta cannot drop a column for some days only")


def partition_outcome(model) -> Outcome:
    """partition_table: the table rewritten whole, partitioned, in one commit; nothing when it already is."""
    now = model.now
    if now is None:
        return Outcome(refused={None: TABLE_MISSING})
    if now.partitioned:
        return Outcome(line="orders_daily is already partitioned by order_date: nothing to do")
    before = len(model.versions) - 1
    return Outcome(replace(now, partitioned=True),
                   {"operation": "WRITE", "predicate": "-", "rows_written": now.total(), "lineage": {}, "note": ""},
                   line=f"orders_daily is now partitioned by order_date: version {before} -> {before + 1}, "
                        f"{now.total()} rows, the same as before")
