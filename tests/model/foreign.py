"""Writes of another Delta client in a history: plain Spark SQL on the table's path, none of the
toolkit's code and no lineage. An INSERT of an order no file holds, a DELETE of one order, an UPDATE of
its amount or of its time (an hour later), a DELETE of a whole day, a REPLACE WHERE of a day from a changed copy of its file (its last
order left out, its first one's amount changed) or from its file as it is, and once a history deletion vectors turned on. The
model knows what each does to the rows; the day's lineage stays its last load's, but speaks for the
day only while its rows are that load's (docs/check.md), so the day's state and every check's PROBLEM
line follow from the rows.
"""
import datetime as dt
from dataclasses import replace

from model.plan import Plan
from model.table_model import Outcome
from model.till import PRICES, RESCUED, check_file

KINDS = ("insert", "delete", "update", "delete_day", "replace")
EXTRA_KINDS = ("retime", "reload")  # drawn by histories.py's second generator, so that the seeds' first draws stay
FOREIGN_ID = 9_000_000  # the ids another writer inserts: no file of the till holds one
CUSTOMER = "C99"
VECTORS = "ALTER TABLE {table} SET TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"


def sql_row(row, names: list) -> str:
    """A row as SQL values, the table's new columns (names) after the day, NULL where the row has none; its
    time in UTC (Z), whatever the zone of the session that runs the statement."""
    order_id, customer, amount, ordered_at, day, extras = row
    more = "".join(f", '{dict(extras)[name]}'" if name in dict(extras) else ", NULL" for name in names)
    return f"({order_id}, '{customer}', {amount}, TIMESTAMP'{ordered_at.replace('T', ' ')}Z', DATE'{day}'{more})"


def by_hand(order, day, names: list) -> tuple:
    """A file's order as another client writes it into the table: the file's values of the columns the table
    has (not into RESCUED: it knows nothing of it)."""
    return (*order[:4], str(day), tuple(pair for pair in order[4] if pair[0] in names and pair[0] != RESCUED))


def an_hour_later(ordered_at: str) -> str:
    return (dt.datetime.fromisoformat(ordered_at) + dt.timedelta(hours=1)).isoformat()


def other_amount(amount: str, pick: int) -> str:
    return next(price for price in PRICES[pick % len(PRICES):] + PRICES if price != amount)


def changed(table: dict, order_id: int, change) -> dict:
    """The table with change(row) applied to every row of order_id (None: the row is deleted), on any day."""
    result = {}
    for day, rows in table.items():
        kept = [change(row) if row[0] == order_id else row for row in rows]
        kept = tuple(sorted(row for row in kept if row is not None))
        if kept:
            result[day] = kept
    return result


def write_of(op, model, day) -> tuple:
    """(SQL statement, the table after it, its history entry's operation, predicate, rows written) of op,
    or None when it has nothing to do (no table, no rows, no file that passes)."""
    table, pick, names = model.now.table, op.get("pick", 0), model.now.names()
    rows = table.get(str(day), ())
    if op["kind"] == "vectors":
        return VECTORS, table, "SET TBLPROPERTIES", "-", 0
    if op["kind"] == "insert":
        taken = {row[0] for day_rows in table.values() for row in day_rows}
        order_id = next(n for n in range(FOREIGN_ID + pick % 1000, FOREIGN_ID + 10 ** 6) if n not in taken)
        row = (order_id, CUSTOMER, PRICES[pick % len(PRICES)], f"{day}T12:{pick % 60:02d}:00", str(day), ())
        return (f"INSERT INTO {{table}} VALUES {sql_row(row, names)}", {**table, str(day): tuple(sorted(rows + (row,)))},
                "WRITE", "-", 1)
    if op["kind"] == "delete_day" and rows:
        after = {key: value for key, value in table.items() if key != str(day)}
        return f"DELETE FROM {{table}} WHERE order_date = DATE'{day}'", after, "DELETE", f"(order_date = {day})", 0
    if op["kind"] in ("delete", "update") and rows:
        target = rows[pick % len(rows)]
        if op["kind"] == "delete":
            return (f"DELETE FROM {{table}} WHERE order_id = {target[0]}", changed(table, target[0], lambda row: None),
                    "DELETE", f"(order_id = {target[0]})", 0)
        amount = other_amount(target[2], pick)
        count = sum(row[0] == target[0] for day_rows in table.values() for row in day_rows)
        return (f"UPDATE {{table}} SET amount = {amount} WHERE order_id = {target[0]}",
                changed(table, target[0], lambda row: (*row[:2], amount, *row[3:])), "UPDATE",
                f"(order_id = {target[0]})", count)
    if op["kind"] == "retime" and rows:
        target = rows[pick % len(rows)]
        count = sum(row[0] == target[0] for day_rows in table.values() for row in day_rows)
        return (f"UPDATE {{table}} SET ordered_at = ordered_at + INTERVAL 1 HOUR WHERE order_id = {target[0]}",
                changed(table, target[0], lambda row: (*row[:3], an_hour_later(row[3]), *row[4:])), "UPDATE",
                f"(order_id = {target[0]})", count)
    orders = check_file(day, model.till.files.get(day)).orders
    if op["kind"] == "reload" and orders:  # the day put right from its file as it is, by hand
        new = tuple(sorted(by_hand(order, day, names) for order in orders))
        return (f"INSERT INTO {{table}} REPLACE WHERE order_date = DATE'{day}' VALUES "
                f"{', '.join(sql_row(row, names) for row in new)}",
                {**table, str(day): new}, "WRITE", f"(order_date = DATE '{day}')", len(new))
    if op["kind"] == "replace" and len(orders) >= 2:
        first, *rest = [by_hand(order, day, names) for order in orders[:-1]]
        new = ((*first[:2], other_amount(first[2], pick), *first[3:]), *rest)
        return (f"INSERT INTO {{table}} REPLACE WHERE order_date = DATE'{day}' VALUES "
                f"{', '.join(sql_row(row, names) for row in new)}",
                {**table, str(day): tuple(sorted(new))}, "WRITE", f"(order_date = DATE '{day}')", len(new))
    return None


def foreign_plan(op, model, days) -> Plan:
    """The plan of another writer's write; argv [] when it has nothing to do."""
    found = write_of(op, model, days[op.get("day", 0)]) if model.now is not None else None
    if found is None:
        return Plan([], lambda spark, show: (0, []), lambda model, results: (0, []))
    statement, table, operation, predicate, rows = found
    entry = {"operation": operation, "predicate": predicate, "rows_written": rows, "lineage": {}, "note": ""}

    def call(spark, show):
        from shoptoolkit.storage.project_paths import table_path
        spark.sql(statement.replace("{table}", f"delta.`{table_path()}`"))
        return 0, []

    def step(model):
        now = model.now
        return Outcome(replace(now, table={day: rows for day, rows in table.items() if rows}), entry)
    return Plan(["tests/model/foreign_write.py", statement], call, lambda model, results: (0, []), [[step]])
