"""Time September's backfill sequential and with runs at once, on both layouts, in one Spark session.

    python bench/bench_parallel.py                    # 30 runs per layout and setting (not a test)
    python bench/bench_parallel.py --last 2026-09-11  # 10 runs per setting, for a quick look

Each setting backfills into a fresh table in bench/out/<setting>/ and must end with the same
content as the first; a line per setting as it ends, then the table of ratios side by side.
Timings on a shared machine are inflated: compare the ratios, not the seconds.
"""
import argparse
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backfill import backfill  # noqa: E402
from delta_session import delta_spark, orders_table, partition_columns  # noqa: E402
from shoptoolkit.dates import parse_date
from shoptoolkit.storage.project_paths import set_root
from shoptoolkit.table.delta_table import PARTITIONED_ENV
from make_days import make_days  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
# Sequential on the partitioned table is the base of every ratio (the layout hardly matters to one run at a time).
SETTINGS = [("partitioned", 1), ("partitioned", 2), ("partitioned", 4), ("unpartitioned", 4)]


def one_setting(spark, layout: str, workers: int, first, last) -> dict:
    """Backfill first..last into a fresh table of layout with workers runs at once; what it took."""
    folder = OUT / f"{layout}-{workers}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    set_root(folder)
    make_days()
    os.environ[PARTITIONED_ENV] = "1" if layout == "partitioned" else "0"
    lines = []
    started = time.perf_counter()
    if workers == 1:
        failed, closing = backfill(spark, first, last, show=lines.append)
    else:
        failed, closing = backfill(spark, first, last, show=lines.append, workers=workers)
    seconds = time.perf_counter() - started
    content = sorted(tuple(row) for row in orders_table(spark).collect())
    return {"layout": layout, "workers": workers, "seconds": seconds, "failed": len(failed),
            "retries": sum("lost a write conflict" in line for line in lines), "closing": closing,
            "content": content, "partitions": partition_columns(spark)}


def table(results: list) -> list:
    base = results[0]["seconds"]
    lines = [f"{'layout':<14} {'at once':>7} {'seconds':>8} {'vs sequential':>13} {'retries':>7} {'failed':>6}"]
    for r in results:
        ratio = base / r["seconds"]
        lines.append(f"{r['layout']:<14} {r['workers']:>7} {r['seconds']:>8.1f} {ratio:>12.2f}x "
                     f"{r['retries']:>7} {r['failed']:>6}")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=parse_date, default=parse_date("2026-09-02"))
    parser.add_argument("--last", type=parse_date, default=parse_date("2026-10-01"))
    parser.add_argument("--only", metavar="LAYOUT:N", nargs="+",
                        help="run only these settings, e.g. unpartitioned:4 (ratios then against the first)")
    args = parser.parse_args(argv)
    settings = [(text.split(":")[0], int(text.split(":")[1])) for text in args.only] if args.only else SETTINGS
    spark, results = delta_spark("bench_parallel"), []
    for layout, workers in settings:
        result = one_setting(spark, layout, workers, args.first, args.last)
        same = result["content"] == results[0]["content"] if results else True
        print(f"{layout} x{workers}: {result['seconds']:.1f} s, {result['closing']}; "
              f"partitioned by {result['partitions'] or 'nothing'}; "
              f"{'same content as the first' if same else 'PROBLEM: content differs'}", flush=True)
        results.append(result)
    print("\n".join(table(results)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
