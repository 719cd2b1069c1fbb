"""Write the till's files for September 2026: landing/orders/2026-09-01.csv .. 2026-09-30.csv.

    python make_days.py            # (re)write the 30 files: same bytes every run; the table is left alone
    python make_days.py --clean    # the same, and delete the orders_daily table for a clean start

130 orders, ids 2001 to 2130 in time order. Running it again restores a deleted or edited file.
"""
import argparse
import datetime as dt
import random
import shutil

from delta_session import COLUMNS, LANDING, add_verbose, day_file, landing_dir, run_main, shown, table_path

FIRST_DAY = dt.date(2026, 9, 1)
FIRST_ORDER_ID = 2001
# Orders per day of September, 1st to 30th: 130 in all.
DAY_COUNTS = (4, 5, 4, 6, 3, 2, 4, 5, 4, 3, 6, 5, 3, 4, 3, 5, 4, 6, 5, 3, 4, 4, 5, 3, 6, 5, 3, 5, 5, 6)
CUSTOMERS = [f"C{n:02d}" for n in range(1, 13)]
PRICES = ("4.50", "7.25", "9.99", "12.00", "15.40", "19.99", "24.90", "32.50", "48.00", "61.75")


def day_rows(day: dt.date, count: int, first_id: int, rng: random.Random) -> list:
    """count orders for one day, ids from first_id, timestamps ascending between 08:00 and 21:59."""
    seconds = sorted(rng.sample(range(8 * 3600, 22 * 3600), count))
    opened = dt.datetime.combine(day, dt.time())
    return [(first_id + i, rng.choice(CUSTOMERS), rng.choice(PRICES),
             (opened + dt.timedelta(seconds=s)).isoformat()) for i, s in enumerate(seconds)]


def make_days() -> list:
    """Write every September file; return the paths written."""
    rng = random.Random(20260901)  # a fixed seed: the same bytes on every run
    landing_dir().mkdir(parents=True, exist_ok=True)
    next_id, written = FIRST_ORDER_ID, []
    for offset, count in enumerate(DAY_COUNTS):
        day = FIRST_DAY + dt.timedelta(days=offset)
        lines = [",".join(COLUMNS)] + [",".join(map(str, row)) for row in day_rows(day, count, next_id, rng)]
        day_file(day).write_text("\n".join(lines) + "\n", encoding="utf-8", newline="\n")
        next_id += count
        written.append(day_file(day))
    return written


def clean_table() -> bool:
    """Delete the orders_daily table's folder; True if there was one."""
    if not table_path().exists():
        return False
    shutil.rmtree(table_path())
    return True


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clean", action="store_true", help="also delete the orders_daily table")
    add_verbose(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        written = make_days()
        print(f"wrote {len(written)} files to {LANDING}/: {written[0].name} .. {written[-1].name}, "
              f"{sum(DAY_COUNTS)} orders")
        if args.clean:
            print(f"deleted {shown(table_path())}" if clean_table() else f"no table at {shown(table_path())}")
        return 0
    return run_main(body, args.verbose)


if __name__ == "__main__":
    raise SystemExit(main())
