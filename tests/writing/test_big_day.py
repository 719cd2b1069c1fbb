"""A 1,000,000-row day loads with Spark's default 1 GiB driver heap, and the Python process stays small:
the file is checked a line at a time (only the set of order ids, for duplicates, grows with it)."""
import datetime as dt
from decimal import Decimal
import subprocess
import sys

from conftest import ROOT
from delta_session import orders_table
from shoptoolkit.storage.project_paths import day_file

ROWS = 1_000_000
PEAK_RSS_LIMIT_MB = 400
MEASURED = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from load_day import main
code = main(["2026-09-16"])
peak = [line for line in open("/proc/self/status") if line.startswith("VmHWM:")][0].split()[1]
print(f"peak_rss_kb {{peak}}")
raise SystemExit(code)
"""


def write_big_day(day: dt.date) -> int:
    """ROWS orders for day, ids from 10,000,000; return the amounts' sum in cents."""
    total = 0
    with open(day_file(day), "w") as handle:
        handle.write("order_id,customer_id,amount,ordered_at\n")
        for i in range(ROWS):
            cents = 450 + i % 5000
            total += cents
            second = i * 86400 // ROWS
            handle.write(f"{10_000_000 + i},C{i % 97:02d},{cents // 100}.{cents % 100:02d},"
                         f"{day}T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}\n")
    return total


def test_a_million_row_day_loads_in_bounded_memory(days, spark):
    from pyspark.sql import functions as F
    from check_day import check_day
    from load_day import load_day
    load_day(spark, "2026-09-02")  # another day in the table, for the check against other days' ids
    day = dt.date(2026, 9, 15)
    others = sorted(orders_table(spark).where(F.col("order_date") != F.lit(day)).collect())
    cents = write_big_day(day)
    done = subprocess.run([sys.executable, "-c", MEASURED], cwd=days, capture_output=True, text=True,
                          timeout=900)
    assert (done.returncode, done.stderr) == (0, "")
    loaded, peak = done.stdout.splitlines()
    assert loaded == f"run 2026-09-16 loaded 2026-09-15: {ROWS} rows, orders_daily has {ROWS + 4}"
    peak_mb = int(peak.split()[1]) / 1024
    print(f"peak RSS of the Python process loading {ROWS} rows: {peak_mb:.0f} MB")
    assert peak_mb < PEAK_RSS_LIMIT_MB
    day_rows = orders_table(spark).where(F.col("order_date") == F.lit(day))
    assert day_rows.agg(F.count("*"), F.countDistinct("order_id"), F.sum("amount")).first() == (
        ROWS, ROWS, Decimal(cents) / 100)
    assert sorted(orders_table(spark).where(F.col("order_date") != F.lit(day)).collect()) == others
    # compared inside Spark (check_day.IDS_IN_PYTHON): only counts come back to Python
    assert check_day(spark, "2026-09-16") == (True, f"ok 2026-09-15: {ROWS} rows for the file's {ROWS} orders, 0 missing")
