"""The course notebook, and the scripts' own text pasted into cells, run in a real Jupyter kernel."""
import os
import re
import signal
from pathlib import Path

import nbformat
import pytest
from jupyter_client import KernelManager
from nbclient import NotebookClient

from conftest import ROOT, group_members

pytestmark = pytest.mark.timeout(1800)  # a kernel and its Spark; nbclient allows a cell 600 s

GUARD = 'if __name__ == "__main__" and "__file__" in globals():'
CONFLICT = "DELTA_CONCURRENT_APPEND.WITHOUT_HINT"
# Put before the cell `parallel.main([])`: its four runs follow tests/support/holding.py's first_loses (the
# first run's write held while the three others commit), so the outcome is forced: 3 of 4.
FIRST_LOSES = (f"from pathlib import Path\nimport sys\nsys.path.insert(0, {str(ROOT / 'tests' / 'support')!r})\n"
               "from holding import hold_first_run\n"
               "hold_first_run(Path('hold').resolve(), ['2026-09-02', '2026-09-03', '2026-09-04', '2026-09-05'])")

# A cell after delta_spark('notebook'): the JVM's options, then a day of 5,000 orders (200 kB) on the Spark
# path of the checks, its threshold lowered as tests/till/test_spark_check.py does, and Python's path made to fail.
BIG_DAY_IN_SPARK = """\
from check_day import check_day
from load_day import load_day
from shoptoolkit.till import day_frames, in_spark
from shoptoolkit.truth import day_compare, day_truth
from shoptoolkit.engine.spark_jvm import QUICK_JIT
from shoptoolkit.storage.project_paths import day_file

arguments = spark.sparkContext._jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
print("full JIT:", QUICK_JIT not in list(arguments))
in_spark.SPARK_CHECK_BYTES, day_frames.MIN_SPLIT = 100_000, 16_000

def not_in_python(day, data=None):
    raise AssertionError(f"{day}'s file was read in Python")
in_spark.read_day_file = day_compare.read_day_file = day_truth.read_day_file = not_in_python
lines = [f"{500_000 + i},C{i % 97:02d},{4 + i % 50}.{i % 100:02d},2026-09-15T{i // 240:02d}:{i // 4 % 60:02d}:00"
         for i in range(5000)]
day_file("2026-09-15").write_text("order_id,customer_id,amount,ordered_at\\n" + "".join(f"{line}\\n" for line in lines))
print(load_day(spark, "2026-09-16"))
print(check_day(spark, "2026-09-16")[1])
"""


def run_notebook(nb, folder: Path) -> None:
    """Execute nb top to bottom in a kernel of this venv working in folder, the toolkit on its PYTHONPATH.

    The kernel talks over Unix sockets in folder (no TCP port). It starts in a process group of its
    own, with its Spark JVM: whatever of that group outlives the shutdown is killed by the group's id."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(folder / "kernel"))
    manager.start_kernel(cwd=str(folder), env=env)
    group = manager.provisioner.process.pid
    try:
        NotebookClient(nb, km=manager, timeout=600, startup_timeout=120).execute()
    finally:
        if manager.has_kernel:
            manager.shutdown_kernel(now=False)
        if group_members(group):
            os.killpg(group, signal.SIGKILL)


def printed(cell) -> str:
    """What a cell printed (stdout) and what it gave back (its Out value)."""
    parts = [out.get("text", "") for out in cell.outputs if out.output_type == "stream" and out.name == "stdout"]
    parts += [out.data.get("text/plain", "") + "\n" for out in cell.outputs if out.output_type == "execute_result"]
    return "".join(parts)


def cell_lines(nb, source_start: str) -> list:
    cell = next(cell for cell in nb.cells if cell.cell_type == "code" and cell.source.startswith(source_start))
    return printed(cell).splitlines()


def test_course_notebook_runs_top_to_bottom_in_a_kernel(tmp_path):
    nb = nbformat.read(ROOT / "notebooks" / "course.ipynb", as_version=4)
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), "saved outputs"
    at_once_cell = next(place for place, cell in enumerate(nb.cells) if cell.source.startswith("import parallel"))
    nb.cells.insert(at_once_cell, nbformat.v4.new_code_cell(FIRST_LOSES))
    run_notebook(nb, tmp_path)

    assert cell_lines(nb, "import sys") == [f"project root: {tmp_path}"]
    assert cell_lines(nb, "import make_days") == [
        "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders", "0"]
    backfill_lines = cell_lines(nb, "import time\n\nimport backfill")
    assert len(backfill_lines) == 32 and backfill_lines[0].startswith("1/30 run 2026-09-02 loaded 2026-09-01: 4 rows")
    assert re.fullmatch(r"ran 30 runs, 0 failed; orders_daily has 30 days, 130 orders \(\d+\.\d s\)",
                        backfill_lines[30]) and backfill_lines[31] == "0"
    assert cell_lines(nb, "from load_day") == ["run 2026-09-16 loaded 2026-09-15: 4 rows, orders_daily has 131"]
    assert cell_lines(nb, "from check_day") == ["ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing"]
    one_commit = cell_lines(nb, "started = time.perf_counter()")
    assert [re.sub(r" \(commit 1 of 1\)$", "", line) for line in one_commit[:30]] == [
        re.sub(r"^(\d+/30 .*orders_daily has )\d+(;.*) \(\d+\.\d\d s\)$", r"\g<1>130\2", line)
        for line in backfill_lines[:30]]
    assert re.fullmatch(r"commit 1 of 1: 30 days in one commit, 30 of 30 runs ok \(\d+\.\d\d s\)", one_commit[30])
    assert re.fullmatch(r"ran 30 runs in 1 commit, 0 failed; orders_daily has 30 days, 130 orders \(\d+\.\d s\)",
                        one_commit[31])
    assert len(one_commit) == 33 and re.fullmatch(
        r"September in one commit: \d+\.\d s; in 30 commits: \d+\.\d s \(\d+\.\dx faster\)", one_commit[32])
    assert cell_lines(nb, "from history") == [
        "version 31 | WRITE | order_date = DATE'2026-09-15' | 4 | run 2026-09-16 | file fe704980722a",
        "version 30 | WRITE | order_date IN 30 days 2026-09-01 .. 2026-09-30 | 130 | runs 2026-09-02 .. 2026-10-01 "
        "| 30 files"]
    month = cell_lines(nb, "import check_month")
    assert month[:2] == ["September 2026: 30 ok", "Mon    Tue    Wed    Thu    Fri    Sat    Sun"]
    assert month[-2:] == ["ok 2026-09: all 30 days match their files, 131 orders", "0"]
    at_once = cell_lines(nb, "import parallel")
    runs = [line for line in at_once if line.startswith("run ")]
    assert len(runs) == 4 and all(re.fullmatch(r"run 2026-09-0\d (loaded .*|failed: DELTA_CONCURRENT_APPEND.*)", line)
                                  for line in runs)
    assert re.fullmatch(r"\d of 4 runs succeeded; orders_daily holds whole days only.*", at_once[-2])
    assert at_once == [f"run 2026-09-02 failed: {CONFLICT}",
                       "run 2026-09-03 loaded 2026-09-02: 5 rows, orders_daily has 131",
                       "run 2026-09-04 loaded 2026-09-03: 4 rows, orders_daily has 131",
                       "run 2026-09-05 loaded 2026-09-04: 6 rows, orders_daily has 131",
                       "3 of 4 runs succeeded; orders_daily holds whole days only; "
                       "load the others with: python backfill.py 2026-09-02 2026-09-02", "0"]
    assert cell_lines(nb, "parallel.main")[-2:] == [
        "4 of 4 runs succeeded; experiments/partitioned/lake/orders_daily holds whole days only", "0"]


def script_texts() -> list:
    """Every script of the toolkit that has a main() a terminal runs: found by its guard line."""
    return sorted(path for path in ROOT.glob("*.py") if GUARD in path.read_text(encoding="utf-8"))


def test_each_script_pasted_into_a_cell_only_defines_and_a_later_cell_calls_it(tmp_path):
    scripts = script_texts()
    assert {"load_day.py", "check_day.py", "backfill.py", "check_month.py", "history.py",
            "parallel.py", "make_days.py"} <= {path.name for path in scripts}
    pasted = [nbformat.v4.new_code_cell(path.read_text(encoding="utf-8")) for path in scripts]
    calls = nbformat.v4.new_code_cell(
        "spark = delta_spark('pasted')\n"
        "written, orders = make_days()\n"
        "print(len(written), orders)\n"
        "print(load_day(spark, '2026-09-16'))\n"
        "print(check_day(spark, '2026-09-16')[1])")
    # %run runs a script's file as a terminal does (its main, with the arguments), in the kernel's session.
    magic = nbformat.v4.new_code_cell(f"%run {ROOT / 'load_day.py'} 2026-09-17\n%run {ROOT / 'check_day.py'} 2026-09-17")
    nb = nbformat.v4.new_notebook(cells=pasted + [calls, magic])
    run_notebook(nb, tmp_path)

    for path, cell in zip(scripts, pasted):
        assert cell.outputs == [], f"{path.name} pasted into a cell printed or raised: {cell.outputs}"
    assert printed(calls).splitlines() == [
        "30 130",
        "run 2026-09-16 loaded 2026-09-15: 3 rows, orders_daily has 3",
        "ok 2026-09-15: 3 rows for the file's 3 orders, 0 missing"]
    assert {(out.output_type, out.get("name")) for out in magic.outputs} == {("stream", "stdout")}  # no error
    assert printed(magic).splitlines() == [
        "run 2026-09-17 loaded 2026-09-16: 5 rows, orders_daily has 8",
        "ok 2026-09-16: 5 rows for the file's 5 orders, 0 missing"]
    assert (tmp_path / "lake" / "orders_daily" / "_delta_log").is_dir()


def test_a_first_cell_reads_orders_daily_by_name_right_after_delta_spark(september):
    """The course's way in a new kernel: the session from delta_session, then plain PySpark on the name."""
    first = nbformat.v4.new_code_cell(
        "from delta_session import delta_spark\n\n"
        "spark = delta_spark('notebook')\n"
        "print(spark.table('orders_daily').count(),\n"
        "      spark.sql('SELECT count(DISTINCT order_date) AS days FROM orders_daily').first().days)")
    nb = nbformat.v4.new_notebook(cells=[first, nbformat.v4.new_code_cell(BIG_DAY_IN_SPARK)])
    run_notebook(nb, september)
    assert printed(nb.cells[0]) == "130 30\n"
    assert [out.output_type for out in nb.cells[0].outputs] == ["stream"]
    # A session made with no days, in a kernel, has Java's full JIT; a day on the Spark path runs in it.
    assert printed(nb.cells[1]).splitlines() == [
        "full JIT: True",
        "run 2026-09-16 loaded 2026-09-15: 5000 rows, orders_daily has 5127",
        "ok 2026-09-15: 5000 rows for the file's 5000 orders, 0 missing"]
