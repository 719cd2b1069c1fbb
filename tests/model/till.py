"""The till in the model check: each day's file as its lines, what the till does to it, and what the
toolkit must make of it (docs/bad_input.md), told by a small checker of the model's own.

A file is a tuple of its lines, the header first (None: no file). The till writes fresh orders,
appends a late one, corrects an amount, takes a line out, deletes a file, spoils one (appends a line the toolkit must
refuse, or an order id that another day holds), puts back a file as it was earlier, and adds a column
(`channel`: web, store or empty, docs/new_columns.md) to a day's file or takes it out again. Each change
returns the shell command that makes it, for a replay a user can paste.
"""
import datetime as dt
import hashlib
import json
import re
from dataclasses import dataclass, field

if __name__ == "__main__":  # run as a script (a replay's big file): the project's modules first
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from shoptoolkit.table_schema import COLUMNS

HEADER = ",".join(COLUMNS)
CHANNEL, CHANNELS = "channel", ("web", "store", "")  # the column a till's update adds, and its values
RESCUED = "_rescued_data"
SMALL = 100  # a file of more lines takes the Spark path: it does not gain the column (docs/new_columns.md's Not yet)
CUSTOMERS = [f"C{n:02d}" for n in range(1, 9)]
PRICES = ("4.50", "7.25", "9.99", "12.00", "15.40", "19.99", "24.90", "32.50")
SPOILS = ("lots", "negative", "next day", "twice", "few fields", "clash")


def file_bytes(content) -> bytes:
    """The file as the till writes it: its lines (the header first), each ending in LF."""
    return "".join(line + "\n" for line in content).encode()


def file_sha256(content) -> str:
    """The sha256 a load records for the file."""
    return hashlib.sha256(file_bytes(content)).hexdigest()


def columns_of(content) -> list:
    """The file's columns, as its header names them."""
    return content[0].split(",")


def rows_digest(orders) -> str:
    """The digest a load records for the rows of these orders (docs/check.md), each (id, customer, amount,
    time, extras): the sum of the first 60 bits of each row's md5 of `id|customer|amount|micros` (the time
    as UTC microseconds) and `|name=value` for each extra value, as 16 hex digits."""
    total = 0
    for order_id, customer, amount, ordered_at, extras in orders:
        at = dt.datetime.fromisoformat(ordered_at).replace(tzinfo=dt.timezone.utc)
        text = "|".join([f"{order_id}|{customer}|{amount}|{int(at.timestamp()) * 1_000_000}",
                         *(f"{name}={value}" for name, value in extras)])
        total += int(hashlib.md5(text.encode()).hexdigest()[:15], 16)
    return f"{total % (1 << 64):016x}"


def opened(extras) -> tuple:
    """A row's extra values as the checks compare them: (name, value) pairs, RESCUED's JSON opened."""
    found = {}
    for name, value in extras:
        found.update(json.loads(value) if name == RESCUED else {name: value})
    return tuple(sorted(found.items()))


def shown(day) -> str:
    """The day's file as the toolkit names it, below the project root."""
    return f"landing/orders/{day}.csv"


@dataclass(frozen=True)
class Checked:
    """What the toolkit must make of a file: its orders when it passes, else the one line it is refused with."""
    orders: tuple = ()   # (order_id, customer_id, amount, ordered_at, extras) of every line; extras: the
    error: str = ""      # values of its columns beyond the till's, (name, value) pairs without the empty ones


def line_problem(day, fields: list, seen: set, width: int) -> str:
    """The documented refusal of one line of the kinds the till writes, '' when it passes."""
    if len(fields) != width:
        return f"{len(fields)} fields, expected {width}"
    order_id, _, amount, ordered_at = fields[:4]
    if amount.startswith("-"):
        return f"amount {amount} is negative"
    if not re.fullmatch(r"\d+\.\d\d", amount):
        return f"amount {amount!r} is not a number like 19.99"
    if not ordered_at.startswith(f"{day}T"):
        return f"ordered_at {ordered_at} is not on {day}"
    if int(order_id) in seen:
        return f"order_id {order_id} appears twice in the file"
    return ""


def check_file(day, content) -> Checked:
    """The model's own check of a day's file's lines (content None: no file)."""
    if content is None:
        return Checked(error="no file")
    orders, seen, columns = [], set(), columns_of(content)
    for number, line in enumerate(content[1:], start=2):
        fields = line.split(",")
        problem = line_problem(day, fields, seen, len(columns))
        if problem:
            return Checked(error=f"{shown(day)} line {number}: {problem}")
        seen.add(int(fields[0]))
        extras = tuple(sorted((name, value) for name, value in zip(columns[4:], fields[4:]) if value))
        orders.append((int(fields[0]), fields[1], fields[2], fields[3], extras))
    return Checked(tuple(orders))


def line_of(content, order_id: int) -> int:
    """The line number of the first line holding order_id (the header is line 1)."""
    return next(number for number, line in enumerate(content[1:], start=2) if line.split(",")[0] == str(order_id))


@dataclass
class Till:
    """The landing folder as the model knows it: every day's file, every content it has had, the next ids."""
    days: list
    files: dict = field(default_factory=dict)
    past: dict = field(default_factory=dict)
    next_id: dict = field(default_factory=dict)

    def order(self, day, pick: int, order_id=None, amount=None, at=None, plain=False) -> str:
        """A new order line for day (a new id unless one is given), its fields picked by pick; a channel when
        the day's file has the column, unless plain."""
        if order_id is None:
            order_id = self.next_id.setdefault(day, day.day * 100_000 + 1)
            self.next_id[day] = order_id + 1
        seconds = 8 * 3600 + pick * 7919 % (14 * 3600)
        at = at or (dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)).isoformat()
        line = f"{order_id},{CUSTOMERS[pick % len(CUSTOMERS)]},{amount or PRICES[pick // 8 % len(PRICES)]},{at}"
        return line + (f",{CHANNELS[pick % len(CHANNELS)]}" if CHANNEL in self.columns(day) and not plain else "")

    def columns(self, day) -> list:
        """The columns of the day's file (the till's when there is none)."""
        return columns_of(self.files.get(day) or (HEADER,))

    def lines(self, day) -> list:
        """The day's file's lines below the header ([] when there is none)."""
        return list((self.files.get(day) or (HEADER,))[1:])

    def put(self, day, lines, header: str = None) -> None:
        """The day's file is now lines below header (the file's own, else the till's; None: deleted); a content
        not seen before joins its past ones."""
        header = header or ",".join(self.columns(day))
        self.files[day] = None if lines is None else (header, *lines)
        if lines is not None and self.files[day] not in self.past.setdefault(day, []):
            self.past[day].append(self.files[day])

    def write(self, day, pick: int) -> str:
        """The till writes the day's file afresh, with the till's columns: 0 to 5 new orders."""
        self.put(day, [self.order(day, pick + n * 13, plain=True) for n in range(pick % 6)], HEADER)
        return printf(day, self.files[day])

    def append(self, day, line: str) -> str:
        """Append a line to the day's file (a file with the header and that line when there is none)."""
        created = self.files.get(day) is None
        self.put(day, self.lines(day) + [line])
        return printf(day, self.files[day]) if created else f"echo '{line}' >> \"$R/{shown(day)}\""

    def big(self, day, pick: int) -> str:
        """The till writes a big file afresh: 200 to 399 orders, above the Spark path's threshold in a history
        (runner.py lowers it as tests/till/test_spark_check.py does), so that its check runs inside Spark."""
        first = self.next_id.get(day, day.day * 100_000 + 1)
        self.put(day, [self.order(day, pick + n * 13, plain=True) for n in range(200 + pick % 200)], HEADER)
        return f"python tests/model/till.py big {day} {pick} {first} > \"$R/{shown(day)}\""

    def gain(self, day, pick: int) -> str:
        """The till's update: the day's file gains the column channel, a value (web, store or empty) on each
        line (nothing when there is no file, it has the column, or it is big)."""
        lines = self.lines(day)
        if self.files.get(day) is None or CHANNEL in self.columns(day) or len(lines) > SMALL:
            return ""
        self.put(day, [f"{line},{CHANNELS[(pick + n) % len(CHANNELS)]}" for n, line in enumerate(lines)],
                 f"{HEADER},{CHANNEL}")
        return printf(day, self.files[day])

    def lose(self, day, pick: int) -> str:
        """The till's file loses the column channel again: each line's last field taken out (nothing when
        there is no file or it has no such column)."""
        if CHANNEL not in self.columns(day):
            return ""
        self.put(day, [line.rsplit(",", 1)[0] for line in self.lines(day)], HEADER)
        return printf(day, self.files[day])

    def late(self, day, pick: int) -> str:
        """A late order: a new id appended."""
        return self.append(day, self.order(day, pick))

    def correct(self, day, pick: int) -> str:
        """A new amount on one order line of the file (nothing when it has none)."""
        lines = self.lines(day)
        good = [at for at, line in enumerate(lines) if len(line.split(",")) == len(self.columns(day))]
        if not good:
            return ""
        at = good[pick % len(good)]
        fields = lines[at].split(",")
        fields[2] = next(price for price in PRICES[pick % len(PRICES):] + PRICES if price != fields[2])
        lines[at] = ",".join(fields)
        self.put(day, lines)
        return printf(day, self.files[day])

    def drop(self, day, pick: int) -> str:
        """A line taken out of the file (nothing when it has none)."""
        lines = self.lines(day)
        if not lines:
            return ""
        del lines[pick % len(lines)]
        self.put(day, lines)
        return printf(day, self.files[day])

    def delete(self, day) -> str:
        """Delete the day's file (nothing when there is none)."""
        if self.files.get(day) is None:
            return ""
        self.put(day, None)
        return f"rm \"$R/{shown(day)}\""

    def spoil(self, day, kind: str, pick: int) -> str:
        """Append a line the toolkit must refuse (kind in SPOILS); `clash` is an id of another day's file."""
        ids = [int(line.split(",")[0]) for line in self.lines(day)]
        others = [int(line.split(",")[0]) for other in self.days if other != day for line in self.lines(other)]
        if kind == "twice" and ids:
            return self.append(day, self.order(day, pick, order_id=ids[pick % len(ids)]))
        if kind == "clash" and others:
            return self.append(day, self.order(day, pick, order_id=others[pick % len(others)]))
        if kind == "negative":
            return self.append(day, self.order(day, pick, amount="-4.50"))
        if kind == "next day":
            return self.append(day, self.order(day, pick, at=f"{day + dt.timedelta(days=1)}T00:10:00"))
        if kind == "few fields":
            return self.append(day, self.order(day, pick).rsplit(",", 1)[0])
        return self.append(day, self.order(day, pick, amount="lots"))

    def restore(self, day, pick: int) -> str:
        """Put back one of the file's earlier contents (nothing when it has had no other)."""
        earlier = [lines for lines in self.past.get(day, []) if lines != self.files.get(day)]
        if not earlier:
            return ""
        self.put(day, earlier[pick % len(earlier)][1:], earlier[pick % len(earlier)][0])
        return printf(day, self.files[day])


def printf(day, content) -> str:
    """The shell command that writes the file whole."""
    quoted = " ".join(f"'{line}'" for line in content)
    return f"printf '%s\\n' {quoted} > \"$R/{shown(day)}\""


if __name__ == "__main__":  # the big file of a replay: python tests/model/till.py big DAY PICK FIRST_ID
    _, _, day, pick, first = sys.argv
    till = Till([dt.date.fromisoformat(day)])
    till.next_id[till.days[0]] = int(first)
    till.big(till.days[0], int(pick))
    sys.stdout.write(file_bytes(till.files[till.days[0]]).decode())
