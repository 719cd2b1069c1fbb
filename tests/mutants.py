"""Planted bugs (mutants): would the model check's fixed runs catch a real bug? Each mutant is one small
change to the toolkit, a bug a user would lose data or trust to; each is applied to a copy of the tree
at HEAD, and the suite's fixed runs (tests/model/fixed.py: its written histories, then its seeds) are run
against it until one diverges.

    python tests/mutants.py --check           # each mutant's text is in its file exactly once (no Spark)
    python tests/mutants.py                   # every mutant against the fixed runs: a line each, then the table's fingerprint
    python tests/mutants.py --only restore_next_version

A line says the mutant, caught or not, by which run and which comparison (the model check's word for
what differed: table, history, states, printed, ...), and the time. The last line gives the fingerprint
of the mutants and the fixed runs; docs/tests.md records the table with it, and tests/oracle/test_mutants.py
fails when either has changed since, so a new mutant, seed or history needs a new run.
"""
import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

# name: (file, the text as it is, the text of the bug)
MUTANTS = {
    "restore_next_version": ("restore_day.py", "then = table_at_version(spark, version).where(",
                             "then = table_at_version(spark, version + 1).where("),
    "no_clash_look": ("load_day.py", "    clash = clash_refusal(spark, found, orders, day)\n",
                      "    clash = {}\n"),
    "mismatch_is_ok": ("shoptoolkit/truth/verdict.py",
                       'return "changed" if loaded and loaded["sha256"] != sha_now else "mismatch"', 'return "ok"'),
    "load_drops_a_line": ("load_day.py", "    orders = read_orders(spark, found, day)\n",
                          "    orders = read_orders(spark, found, day).limit(max(found.count - 1, 0))\n"),
    "backfill_skips_a_day": ("shoptoolkit/truth/reprocess.py", "        return run_dates(first, last)\n",
                             "        return run_dates(first, last)[:-1] if first != last else run_dates(first, last)\n"),
    "failed_reruns_ok_days": ("shoptoolkit/truth/reprocess.py", '"failed": ("mismatch", "missing", "no file"),',
                              '"failed": ("mismatch", "missing", "no file", "ok"),'),
    "lineage_of_another_day": ("shoptoolkit/writing/commit_days.py",
                               "entries = [lineage_entry(run_date, day, found, None, absent(found.columns)) "
                               "for run_date, day, found in loading]",
                               "entries = [lineage_entry(run_date, day, found, None, absent(found.columns)) "
                               "for (run_date, day, _), (_, _, found) in zip(loading, loading[1:] + loading[:1])]"),
    "range_restore_leaves_a_day": ("restore_day.py",
                                   "{PARTITION_COLUMN} <= DATE'{last_day}'\"", "{PARTITION_COLUMN} < DATE'{last_day}'\""),
    "retry_writes_twice": ("shoptoolkit/writing/retry.py", "            return write()\n",
                           "            write()\n            return write()\n"),
    "spark_path_refuses_nothing": ("shoptoolkit/till/in_spark.py",
                                   '    refused_at = scan.refused or math.inf\n',
                                   '    return False\n    refused_at = scan.refused or math.inf\n'),
    "record_ignores_removed_files": ("shoptoolkit/truth/day_record.py",
                                     'if any(add["path"] in removed or add.get("deletionVector") for add in own):',
                                     'if any(add.get("deletionVector") for add in own):'),
    "history_counts_copied_rows": ("history.py", ' - int(metrics.get("numCopiedRows", 0))', ""),
    "partition_loses_a_day": ("partition_table.py", "    (table_at_version(spark, before).write.format",
                              "    last = table_at_version(spark, before).agg({'order_date': 'max'}).first()[0]\n"
                              "    (table_at_version(spark, before).where(f\"order_date <> DATE'{last}'\").write.format"),
    "corrected_file_is_ok": ("shoptoolkit/truth/verdict.py",
                             'return "changed" if loaded and loaded["sha256"] != sha_now else "mismatch"',
                             'return "ok" if loaded and loaded["sha256"] != sha_now else "mismatch"'),
    "state_from_own_commits_only": ("shoptoolkit/truth/day_truth.py", 'if not loaded or "rows_digest" not in loaded:',
                                    "if True:"),
    "load_writes_an_amount_wrong": ("load_day.py", "    orders = read_orders(spark, found, day)\n",
                                    "    orders = read_orders(spark, found, day).selectExpr('order_id', 'customer_id',"
                                    " 'CAST(if(order_id = ' + str(found.lowest) + ', amount + 1, amount) AS DECIMAL(12,2)) AS amount',"
                                    " 'ordered_at', 'order_date')\n"),
    "file_read_in_session_zone": ("shoptoolkit/table_schema.py", ', "timeZone": "UTC"}', "}"),
    # Issue 64: a load that gives the table its new column in a commit of its own, before the rows' commit (and
    # before the clash look), so that a load refused or failed after it leaves the schema changed.
    "column_in_own_commit": ("load_day.py", "    orders = read_orders(spark, found, day)\n",
                             "    if current().added(found.types):\n"
                             "        spark.sql(f\"ALTER TABLE delta.`{table_path()}` ADD COLUMNS (\" + \", \".join("
                             "f\"{name} {kind}\" for name, kind in current().added(found.types).items()) + \")\")\n"
                             "    orders = read_orders(spark, found, day)\n"),
    # A check that compares an order's customer, amount and time only, blind to its new columns' values.
    "check_ignores_new_column": ("shoptoolkit/truth/day_compare.py", "and in_file[row[0]] != row[1]}",
                                 "and in_file[row[0]][:3] != row[1][:3]}"),
}


def fingerprint() -> str:
    """Of the mutants and the suite's fixed runs: a new mutant, seed or history changes it."""
    from model.fixed import HISTORIES, SEEDS
    text = json.dumps({"mutants": MUTANTS, "seeds": SEEDS, "histories": HISTORIES}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def applied(tree: Path, name: str) -> None:
    """Plant mutant name in tree; its text must be there exactly once."""
    file, old, new = MUTANTS[name]
    path = tree / file
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise SystemExit(f"mutant {name}: its text is in {file} {text.count(old)} times, not once")
    path.write_text(text.replace(old, new), encoding="utf-8")


CAUGHT = re.compile(r"^(seed \d+|history \w+): (?:operation (\d+) .*?\): (table|history|states|printed|reading)|"
                    r"(read by another process))", re.M)


def verdict(name: str) -> str:
    """Run the fixed runs against a copy of the tree with the mutant planted; the mutant's line."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        subprocess.run(f"git archive --format=tar HEAD | tar -x -C {folder} --one-top-level=tree",
                       shell=True, cwd=ROOT, check=True)
        applied(tree, name)
        done = subprocess.run([sys.executable, "tests/model_check.py", "--suite", "--first", "--shrink", "0"],
                              cwd=tree, capture_output=True, text=True)
    found, seconds = CAUGHT.search(done.stdout), time.perf_counter() - began
    if found:
        how = f"{found[3]} at operation {found[2]}" if found[2] else "another process's read"
        return f"{name}: caught by {found[1]} ({how}), {seconds:.0f} s"
    if done.returncode != 0:
        return f"{name}: NOT caught, the model check failed (exit {done.returncode}): {done.stderr[-300:]!r}"
    return f"{name}: NOT caught, {seconds:.0f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that each mutant applies")
    parser.add_argument("--only", action="append", choices=MUTANTS, help="this mutant only (may repeat)")
    args = parser.parse_args(argv)
    names = args.only or list(MUTANTS)
    if args.check:
        with tempfile.TemporaryDirectory() as folder:
            for name in names:
                subprocess.run(f"git archive --format=tar HEAD | tar -x -C {folder}", shell=True, cwd=ROOT, check=True)
                applied(Path(folder), name)
        print(f"{len(names)} mutants apply")
        return 0
    lines = []
    for name in names:
        lines.append(verdict(name))
        print(lines[-1], flush=True)
    caught = sum("NOT caught" not in line for line in lines)
    print(f"{caught} of {len(lines)} mutants caught; fingerprint {fingerprint()}")
    return 0 if caught == len(lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
