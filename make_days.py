"""Write the till's files, one a day: landing/orders/YYYY-MM-DD.csv (September 2026 by default).

    python make_days.py            # (re)write September 2026's 30 files: same bytes every run
    python make_days.py --from 2025-10-01 --to 2026-09-30    # any range of days, up to 3660 of them
    python make_days.py --clean    # the same, and delete the orders_daily table for a clean start

September 2026 is the course month: 130 orders, ids 2001 to 2130 in time order, its files the same
whether it is written alone or inside a longer range. Any other day D gets 2 to 6 orders from a
generator seeded with D alone (YYYYMMDD), ids YYYYMMDD01, YYYYMMDD02, ... in time order: a day's file
is the same bytes in every range that holds it, ids never repeat across days, and they cannot meet
September's 2001-2130 (they have ten digits). The table is left alone unless --clean.
Running it again restores a deleted or edited file.
"""
import argparse
import datetime as dt
import random

from shoptoolkit.run_args import add_root, add_verbose, parse_date, run_dates, run_main
from shoptoolkit.storage import LANDING, day_file, landing_dir, remove_tree, shown, table_path
from shoptoolkit.table import COLUMNS

FIRST_DAY = dt.date(2026, 9, 1)
LAST_DAY = dt.date(2026, 9, 30)
FIRST_ORDER_ID = 2001
# Orders per day of September, 1st to 30th: 130 in all.
DAY_COUNTS = (4, 5, 4, 6, 3, 2, 4, 5, 4, 3, 6, 5, 3, 4, 3, 5, 4, 6, 5, 3, 4, 4, 5, 3, 6, 5, 3, 5, 5, 6)
CUSTOMERS = [f"C{n:02d}" for n in range(1, 13)]
PRICES = ("4.50", "7.25", "9.99", "12.00", "15.40", "19.99", "24.90", "32.50", "48.00", "61.75")
MAX_DAYS = 3660  # about ten years of files
OTHER_DAY_ORDERS = (2, 6)  # fewest and most orders on a day outside September 2026


def day_rows(day: dt.date, count: int, first_id: int, rng: random.Random) -> list:
    """count orders for one day, ids from first_id, timestamps ascending between 08:00 and 21:59."""
    seconds = sorted(rng.sample(range(8 * 3600, 22 * 3600), count))
    opened = dt.datetime.combine(day, dt.time())
    return [(first_id + i, rng.choice(CUSTOMERS), rng.choice(PRICES),
             (opened + dt.timedelta(seconds=s)).isoformat()) for i, s in enumerate(seconds)]


def september_rows() -> dict:
    """The course month's rows by day: one generator for the whole month, as it always was."""
    rng = random.Random(20260901)  # a fixed seed: the same bytes on every run
    rows, next_id = {}, FIRST_ORDER_ID
    for offset, count in enumerate(DAY_COUNTS):
        day = FIRST_DAY + dt.timedelta(days=offset)
        rows[day] = day_rows(day, count, next_id, rng)
        next_id += count
    return rows


def other_day_rows(day: dt.date) -> list:
    """A day outside September 2026: its count and its orders from a generator seeded with the day."""
    number = int(day.strftime("%Y%m%d"))
    rng = random.Random(number)
    return day_rows(day, rng.randint(*OTHER_DAY_ORDERS), number * 100 + 1, rng)


def write_day(day: dt.date, rows: list) -> None:
    lines = [",".join(COLUMNS)] + [",".join(map(str, row)) for row in rows]
    day_file(day).write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")


def make_days(first=FIRST_DAY, last=LAST_DAY) -> tuple:
    """Write the file of every day from first to last; return (paths written, orders in them)."""
    september = september_rows() if first <= LAST_DAY and last >= FIRST_DAY else {}
    landing_dir().mkdir(parents=True, exist_ok=True)
    written, orders = [], 0
    for day in run_dates(first, last):
        rows = september[day] if day in september else other_day_rows(day)
        write_day(day, rows)
        written.append(day_file(day))
        orders += len(rows)
    return written, orders


def clean_table() -> bool:
    """Delete the orders_daily table's folder (on an object store, every object below it); True if there was one."""
    if not table_path().exists():
        return False
    remove_tree(table_path())
    return True


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="first", type=parse_date, default=FIRST_DAY,
                        help=f"first day to write (YYYY-MM-DD, default {FIRST_DAY})")
    parser.add_argument("--to", dest="last", type=parse_date, default=LAST_DAY,
                        help=f"last day to write, included (default {LAST_DAY})")
    parser.add_argument("--clean", action="store_true", help="also delete the orders_daily table")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    if args.first > args.last:
        parser.error(f"--from {args.first} is after --to {args.last}")
    days = (args.last - args.first).days + 1
    if days > MAX_DAYS:
        parser.error(f"{days} days is more than {MAX_DAYS}; write a shorter range")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        written, orders = make_days(args.first, args.last)
        print(f"wrote {len(written)} files to {LANDING}/: {written[0].name} .. {written[-1].name}, "
              f"{orders} orders")
        if args.clean and clean_table():
            print(f"deleted {shown(table_path())}")
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
