"""Planted bugs (mutants): would the model check's fixed seeds catch a real bug? Each mutant is one small
change to the toolkit, a bug a user would lose data or trust to; each is applied to a copy of the tree,
and the seeds of tests/test_model_check.py are run against it.

    python tests/mutants.py --check           # each mutant's text is in its file exactly once (no Spark)
    python tests/mutants.py                   # every mutant against the suite's seeds: a line each
    python tests/mutants.py --only restore_next_version --seed 17867

A line says the mutant, caught or not, by which seed and which comparison (the model check's word
before its first colon: table, history, printed, ...), and the time.
"""
import argparse
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
    "mismatch_is_ok": ("shoptoolkit/day_states.py", 'return "ok" if matches else "mismatch"', 'return "ok"'),
    "load_drops_a_line": ("load_day.py", "    orders = read_orders(spark, found, day)\n",
                          "    orders = read_orders(spark, found, day).limit(max(found.count - 1, 0))\n"),
    "backfill_skips_a_day": ("shoptoolkit/reprocess.py", "        return run_dates(first, last)\n",
                             "        return run_dates(first, last)[:-1] if first != last else run_dates(first, last)\n"),
    "failed_reruns_ok_days": ("shoptoolkit/reprocess.py", '"failed": ("mismatch", "missing", "no file"),',
                              '"failed": ("mismatch", "missing", "no file", "ok"),'),
    "lineage_of_another_day": ("shoptoolkit/load_days.py",
                               "entries = [lineage_entry(run_date, day, found) for run_date, day, found in loading]",
                               "entries = [lineage_entry(run_date, day, found) for (run_date, day, _), (_, _, found)"
                               " in zip(loading, loading[1:] + loading[:1])]"),
    "range_restore_leaves_a_day": ("restore_day.py",
                                   "{PARTITION_COLUMN} <= DATE'{last_day}'\"", "{PARTITION_COLUMN} < DATE'{last_day}'\""),
    "retry_writes_twice": ("shoptoolkit/retry.py", "            return write()\n",
                           "            write()\n            return write()\n"),
    "spark_path_refuses_nothing": ("shoptoolkit/file_check/in_spark.py",
                                   '    refused_at = scan.refused or math.inf\n',
                                   '    return False\n    refused_at = scan.refused or math.inf\n'),
    "record_ignores_removed_files": ("shoptoolkit/day_record.py",
                                     'if any(add["path"] in removed or add.get("deletionVector") for add in own):',
                                     'if any(add.get("deletionVector") for add in own):'),
    "history_counts_copied_rows": ("history.py", ' - int(metrics.get("numCopiedRows", 0))', ""),
}


def suite_seeds() -> list:
    """The fixed seeds of tests/test_model_check.py."""
    text = (ROOT / "tests" / "test_model_check.py").read_text(encoding="utf-8")
    return [int(seed) for seed in re.search(r"^SEEDS = \[([\d, ]+)\]", text, re.M)[1].split(",")]


def applied(tree: Path, name: str) -> None:
    """Plant mutant name in tree; its text must be there exactly once."""
    file, old, new = MUTANTS[name]
    path = tree / file
    text = path.read_text(encoding="utf-8")
    if text.count(old) != 1:
        raise SystemExit(f"mutant {name}: its text is in {file} {text.count(old)} times, not once")
    path.write_text(text.replace(old, new), encoding="utf-8")


def verdict(name: str, seeds: list) -> str:
    """Run the seeds against a copy of the tree with the mutant planted; the mutant's line."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        tree = Path(folder) / "tree"
        subprocess.run(f"git archive --format=tar HEAD | tar -x -C {folder} --one-top-level=tree",
                       shell=True, cwd=ROOT, check=True)
        applied(tree, name)
        for seed in seeds:
            done = subprocess.run([sys.executable, "tests/model_check.py", "--seed", str(seed), "--shrink", "0"],
                                  cwd=tree, capture_output=True, text=True)
            found = re.search(rf"^seed {seed}: operation (\d+) \((.*?)\): (\w+)", done.stdout, re.M)
            if done.returncode != 0:
                how = f"{found[3]} at operation {found[1]}" if found else "exit " + str(done.returncode)
                return f"{name}: caught by seed {seed} ({how}), {time.perf_counter() - began:.0f} s"
    return f"{name}: NOT caught by seeds {seeds}, {time.perf_counter() - began:.0f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that each mutant applies")
    parser.add_argument("--only", action="append", choices=MUTANTS, help="this mutant only (may repeat)")
    parser.add_argument("--seed", type=int, action="append", help="this seed instead of the suite's (may repeat)")
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
        lines.append(verdict(name, args.seed or suite_seeds()))
        print(lines[-1], flush=True)
    return 0 if all("NOT caught" not in line for line in lines) else 1


if __name__ == "__main__":
    raise SystemExit(main())
