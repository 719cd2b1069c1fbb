"""A day of 1,000,000 orders as two cold processes, `python load_day.py D` then `python check_day.py D`,
against one cold plain-Spark script doing the same work (plain Spark's minimal load: its file read with
the table's schema, FAILFAST, replaceWhere, a count), alternating, in a temporary root.

    python bench/bench_cold_day.py            # two tries each, about 3 minutes on 2 cores

check_day.py answers from the load's record in the Delta log and starts no Spark (docs/check.md); its
time is printed apart, with `check_day.py D --deep` (the comparison of the rows, Spark started) beside it.
Target: the toolkit's two processes at most 1.5x the plain script.
"""
import argparse
import datetime as dt
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_scale import BIG_DAY, BIG_ROWS, write_big_day  # noqa: E402
from make_days import make_days  # noqa: E402
from shoptoolkit.storage.project_paths import root_at
from side_by_side import best, tries  # noqa: E402

TARGET = 1.5
RUN = str(BIG_DAY + dt.timedelta(days=1))
PLAIN = f"""
import datetime as dt, sys
sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'bench')!r}]
from delta_session import delta_spark
from engine_refs import plain_day
from shoptoolkit.storage.project_paths import set_root
set_root({{root!r}})
day = dt.date.fromisoformat({str(BIG_DAY)!r})
plain_day(delta_spark("plain", commits=1, days=[day]), day)
"""


def script(root: Path, *args) -> float:
    """Seconds of one cold process of a toolkit script below root; it must succeed."""
    began = time.perf_counter()
    subprocess.run([sys.executable, str(ROOT / args[0]), *args[1:], "--root", str(root)], check=True,
                   capture_output=True)
    return time.perf_counter() - began


def toolkit(root: Path) -> tuple:
    load, check = script(root, "load_day.py", RUN), script(root, "check_day.py", RUN)
    return load + check, f" (load_day.py {load:.1f} s, check_day.py {check:.2f} s)"


def plain(root: Path) -> tuple:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", PLAIN.format(root=str(root))], check=True, capture_output=True)
    return time.perf_counter() - began, ""


def deep(root: Path) -> tuple:
    return script(root, "check_day.py", RUN, "--deep"), ""


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    with tempfile.TemporaryDirectory() as folder, root_at(folder) as root:
        make_days()
        write_big_day(BIG_DAY, BIG_ROWS)
        script(root, "load_day.py", RUN)  # the table exists before the first try, as on a day of a month
        found = tries({"toolkit": lambda: toolkit(root), "plain Spark": lambda: plain(root)})
        tries({"check_day.py --deep": lambda: deep(root)}, 1)
    ratio = best(found, "toolkit") / best(found, "plain Spark")
    print(f"cold: load_day.py + check_day.py {best(found, 'toolkit'):.1f} s against a plain Spark script "
          f"{best(found, 'plain Spark'):.1f} s: {ratio:.2f}x (target {TARGET}x: {'met' if ratio <= TARGET else 'not met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
