"""A refused million-order file: how long until load_day's one-line refusal, against the good file's load,
side by side in one warm session, alternating (good, a bad last amount, a last line repeating the first
id), three tries each, in a temporary root.

    python bench/bench_refused.py          # about 3 minutes on 2 cores
    python bench/bench_refused.py --steps  # each try's steps too, as bench_steps.py times them

A big file is read, checked and written in one job (shoptoolkit/writing/held_write.py). A bad line fails that
job, and then the check reads the file again to word the refusal; a repeated id is counted by the job
itself, its written files deleted, and the check words it the same way. No version holds either file.
"""
import argparse
import datetime as dt
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import load_day as load_script  # noqa: E402
from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from bench_steps import timing  # noqa: E402
from delta_session import delta_spark  # noqa: E402
from load_day import load_day  # noqa: E402
from make_days import make_days  # noqa: E402
from shoptoolkit.errors import ToolkitError
from shoptoolkit.storage.project_paths import day_file, root_at
from shoptoolkit.till import in_spark
from side_by_side import best, tries  # noqa: E402

RUN = BIG_DAY + dt.timedelta(days=1)
LAST_LINES = {"a bad amount": f"{10_000_000 + BIG_ROWS},C01,4.5O,{BIG_DAY}T23:59:59",
              "an id twice": f"10000000,C01,4.50,{BIG_DAY}T23:59:59"}
# The steps --steps times: the one job (which a refused line fails), then the check that words the refusal:
# its pass over the lines, and the query that fetches the refused line or finds the repeated id.
STEPS = [(load_script, "held_days", "the one job"), (load_script, "checked_day", "the check"),
         (in_spark, "count_lines", "its pass"), (in_spark, "lines_from", "the line fetched"),
         (in_spark, "first_twice", "the id's lines found")]
SPENT = {}


def loaded(spark, last_line: str = "") -> tuple:
    """load_day of the big day with last_line after its orders: (seconds, the line it printed or refused with)."""
    write_big_day(BIG_DAY, BIG_ROWS)
    if last_line:
        with open(day_file(BIG_DAY), "a") as handle:
            handle.write(last_line + "\n")
    SPENT.clear()
    began = time.perf_counter()
    try:
        line = load_day(spark, RUN)
    except ToolkitError as refusal:
        line = f"refused: {refusal}"
    assert ("refused" in line) == bool(last_line), line
    steps = "; ".join(f"{label} {SPENT[label]:.2f} s" for _, _, label in STEPS if label in SPENT)
    return time.perf_counter() - began, f" ({line[:90]})" + (f"\n    {steps}" if steps else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", action="store_true", help="time each try's steps (bench_steps.py's way)")
    if parser.parse_args(argv).steps:
        for module, name, label in STEPS:
            timing(module, name, label, SPENT)
    print(f"== refused big files, {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC, "
          f"load average {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder, root_at(folder):
        make_days()
        spark = delta_spark("bench_refused", commits=1, days=[BIG_DAY])
        load_day(spark, "2026-09-02")  # a table holding a small day, and a warm-up
        loaded(spark)
        ways = {"good file": lambda: loaded(spark)}
        ways.update({name: (lambda line=line: loaded(spark, line)) for name, line in LAST_LINES.items()})
        found = tries(ways, 3)
        good = best(found, "good file")
        for name in LAST_LINES:
            print(f"{name}: refused in {best(found, name):.1f} s, {best(found, name) / good:.2f}x the good "
                  f"file's load ({good:.1f} s)")
        spark.stop()
    print(f"== load average after {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
