"""The till in the model check: each day's file as its lines, what the till does to it, and what the
toolkit must make of it (docs/bad_input.md), told by a small checker of the model's own.

A file is a tuple of order lines below the header (None: no file). The till writes fresh orders,
appends a late one, corrects an amount, takes a line out, deletes a file, spoils one (appends a line the toolkit must
refuse, or an order id that another day holds), and puts back a file as it was earlier. Each change
returns the shell command that makes it, for a replay a user can paste.
"""
import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field

if __name__ == "__main__":  # run as a script (a replay's big file): the project's modules first
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from shoptoolkit.table_schema import COLUMNS

HEADER = ",".join(COLUMNS)
CUSTOMERS = [f"C{n:02d}" for n in range(1, 9)]
PRICES = ("4.50", "7.25", "9.99", "12.00", "15.40", "19.99", "24.90", "32.50")
SPOILS = ("lots", "negative", "next day", "twice", "few fields", "clash")


def file_bytes(lines) -> bytes:
    """The file as the till writes it: the header, then a line an order, each ending in LF."""
    return (HEADER + "\n" + "".join(line + "\n" for line in lines)).encode()


def file_sha256(lines) -> str:
    """The sha256 a load records for the file."""
    return hashlib.sha256(file_bytes(lines)).hexdigest()


def rows_digest(orders) -> str:
    """The digest a load records for the rows of these orders (docs/check.md): the sum of the first 60 bits
    of each row's md5 of `id|customer|amount|micros` (the time as UTC microseconds), as 16 hex digits."""
    total = 0
    for order_id, customer, amount, ordered_at, *_ in orders:
        at = dt.datetime.fromisoformat(ordered_at).replace(tzinfo=dt.timezone.utc)
        text = f"{order_id}|{customer}|{amount}|{int(at.timestamp()) * 1_000_000}"
        total += int(hashlib.md5(text.encode()).hexdigest()[:15], 16)
    return f"{total % (1 << 64):016x}"


def shown(day) -> str:
    """The day's file as the toolkit names it, below the project root."""
    return f"landing/orders/{day}.csv"


@dataclass(frozen=True)
class Checked:
    """What the toolkit must make of a file: its orders when it passes, else the one line it is refused with."""
    orders: tuple = ()   # (order_id, customer_id, amount, ordered_at) of every line
    error: str = ""


def line_problem(day, fields: list, seen: set) -> str:
    """The documented refusal of one line of the kinds the till writes, '' when it passes."""
    if len(fields) != len(COLUMNS):
        return f"{len(fields)} fields, expected {len(COLUMNS)}"
    order_id, _, amount, ordered_at = fields
    if amount.startswith("-"):
        return f"amount {amount} is negative"
    if not re.fullmatch(r"\d+\.\d\d", amount):
        return f"amount {amount!r} is not a number like 19.99"
    if not ordered_at.startswith(f"{day}T"):
        return f"ordered_at {ordered_at} is not on {day}"
    if int(order_id) in seen:
        return f"order_id {order_id} appears twice in the file"
    return ""


def check_file(day, lines) -> Checked:
    """The model's own check of a day's file (lines None: no file)."""
    if lines is None:
        return Checked(error="no file")
    orders, seen = [], set()
    for number, line in enumerate(lines, start=2):
        fields = line.split(",")
        problem = line_problem(day, fields, seen)
        if problem:
            return Checked(error=f"{shown(day)} line {number}: {problem}")
        seen.add(int(fields[0]))
        orders.append((int(fields[0]), fields[1], fields[2], fields[3]))
    return Checked(tuple(orders))


def line_of(lines, order_id: int) -> int:
    """The line number of the first line holding order_id (the header is line 1)."""
    return next(number for number, line in enumerate(lines, start=2) if line.split(",")[0] == str(order_id))


@dataclass
class Till:
    """The landing folder as the model knows it: every day's file, every content it has had, the next ids."""
    days: list
    files: dict = field(default_factory=dict)
    past: dict = field(default_factory=dict)
    next_id: dict = field(default_factory=dict)

    def order(self, day, pick: int, order_id=None, amount=None, at=None) -> str:
        """A new order line for day (a new id unless one is given), its fields picked by pick."""
        if order_id is None:
            order_id = self.next_id.setdefault(day, day.day * 100_000 + 1)
            self.next_id[day] = order_id + 1
        seconds = 8 * 3600 + pick * 7919 % (14 * 3600)
        at = at or (dt.datetime.combine(day, dt.time()) + dt.timedelta(seconds=seconds)).isoformat()
        return f"{order_id},{CUSTOMERS[pick % len(CUSTOMERS)]},{amount or PRICES[pick // 8 % len(PRICES)]},{at}"

    def put(self, day, lines) -> None:
        """The day's file is now lines (None: deleted); a content not seen before joins its past ones."""
        self.files[day] = None if lines is None else tuple(lines)
        if lines is not None and tuple(lines) not in self.past.setdefault(day, []):
            self.past[day].append(tuple(lines))

    def write(self, day, pick: int) -> str:
        """The till writes the day's file afresh: 0 to 5 new orders."""
        self.put(day, [self.order(day, pick + n * 13) for n in range(pick % 6)])
        return printf(day, self.files[day])

    def append(self, day, line: str) -> str:
        """Append a line to the day's file (a file with the header and that line when there is none)."""
        created = self.files.get(day) is None
        self.put(day, list(self.files.get(day) or ()) + [line])
        return printf(day, self.files[day]) if created else f"echo '{line}' >> \"$R/{shown(day)}\""

    def big(self, day, pick: int) -> str:
        """The till writes a big file afresh: 200 to 399 orders, above the Spark path's threshold in a history
        (runner.py lowers it as tests/till/test_spark_check.py does), so that its check runs inside Spark."""
        first = self.next_id.get(day, day.day * 100_000 + 1)
        self.put(day, [self.order(day, pick + n * 13) for n in range(200 + pick % 200)])
        return f"python tests/model/till.py big {day} {pick} {first} > \"$R/{shown(day)}\""

    def late(self, day, pick: int) -> str:
        """A late order: a new id appended."""
        return self.append(day, self.order(day, pick))

    def correct(self, day, pick: int) -> str:
        """A new amount on one order line of the file (nothing when it has none)."""
        lines = list(self.files.get(day) or ())
        good = [at for at, line in enumerate(lines) if len(line.split(",")) == len(COLUMNS)]
        if not good:
            return ""
        at = good[pick % len(good)]
        order_id, customer, amount, ordered_at = lines[at].split(",")
        amount = next(price for price in PRICES[pick % len(PRICES):] + PRICES if price != amount)
        lines[at] = f"{order_id},{customer},{amount},{ordered_at}"
        self.put(day, lines)
        return printf(day, self.files[day])

    def drop(self, day, pick: int) -> str:
        """A line taken out of the file (nothing when it has none)."""
        lines = list(self.files.get(day) or ())
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
        ids = [int(line.split(",")[0]) for line in self.files.get(day) or ()]
        others = [int(line.split(",")[0]) for other in self.days if other != day
                  for line in self.files.get(other) or ()]
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
        self.put(day, earlier[pick % len(earlier)])
        return printf(day, self.files[day])


def printf(day, lines) -> str:
    """The shell command that writes the file whole."""
    quoted = " ".join(f"'{line}'" for line in (HEADER, *lines))
    return f"printf '%s\\n' {quoted} > \"$R/{shown(day)}\""


if __name__ == "__main__":  # the big file of a replay: python tests/model/till.py big DAY PICK FIRST_ID
    _, _, day, pick, first = sys.argv
    till = Till([dt.date.fromisoformat(day)])
    till.next_id[till.days[0]] = int(first)
    till.big(till.days[0], int(pick))
    sys.stdout.write(file_bytes(till.files[till.days[0]]).decode())
