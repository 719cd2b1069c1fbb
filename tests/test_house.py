"""The house stays as the README draws it: at the top only what a user runs or opens, the machinery in
the shoptoolkit package (the JVM's in shoptoolkit/jvm/), nothing importing from a band above its own,
and every module short enough to read in a screen or two."""
import ast
import subprocess

import pytest

from conftest import ROOT

# What `ls` shows at the top of a fresh clone: the scripts a user types, the one helper they share,
# and the folders and files a user opens.
SCRIPTS = {"make_days", "load_day", "check_day", "check_month", "backfill", "parallel", "history", "restore_day",
           "partition_table", "spark_server", "run_pipeline", "check_pipeline", "failed_day", "upkeep"}
TOP = {f"{name}.py" for name in SCRIPTS | {"delta_session"}} | {
    "landing", "tests", "requirements.txt", "requirements", "README.md", "Makefile", "databricks.yml", "dags",
    "pipelines", "notebooks", "docs", "bench", "shoptoolkit"}
JVM = {"shoptoolkit.jvm.spark_jvm", "shoptoolkit.jvm.expression_mode", "shoptoolkit.jvm.class_archive",
       "shoptoolkit.jvm.log_store", "shoptoolkit.jvm.s3_connector"}
FILE_CHECK = {f"shoptoolkit.file_check.{name}" for name in ("in_python", "in_spark", "in_write", "line_scan",
                                                                   "rules_sql")}
STORAGE = {f"shoptoolkit.storage.{name}" for name in ("object_path", "stores")}

# The bands, bottom up: the package's shared helpers (with the JVM's, the file check's and the storage's),
# the package's day machinery, the scripts' shared helper, the day scripts, the drivers that loop or serve.
HELPERS = {f"shoptoolkit.{name}" for name in (
    "table_schema", "errors", "conflicts", "commit_safety", "project_paths", "retry", "run_args", "delta_log_check",
    "day_frames", "first_load", "spark_settings", "table",
    "connect_client", "connect_server", "pipeline_setup", "pipeline_port", "undo_window", "row_values")} | (
    JVM | FILE_CHECK | STORAGE)
MACHINERY = {f"shoptoolkit.{name}" for name in ("day_compare", "lineage", "late_clash", "commit_ids", "load_days",
                                                 "day_states", "month_calendar", "reprocess", "compaction",
                                                 "day_record", "spark_compare", "held_write")}
SESSION = {"delta_session"}
DAYS = {"make_days", "load_day", "check_day", "restore_day", "partition_table", "history", "failed_day", "upkeep"}
DRIVERS = {"backfill", "parallel", "check_month", "spark_server", "run_pipeline", "check_pipeline"}
BANDS = [HELPERS, MACHINERY, SESSION, DAYS, DRIVERS]
MAX_FILE_LINES = 200
MAX_FUNCTION_LINES = 30


def band(name: str) -> int:
    return next(number for number, members in enumerate(BANDS) if name in members)


def module_name(path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


def modules() -> list:
    return sorted(ROOT.glob("*.py")) + sorted(path for path in (ROOT / "shoptoolkit").rglob("*.py")
                                              if path.name != "__init__.py")


def toolkit_imports(path) -> set:
    """The toolkit's modules that path imports (at its top or inside a function)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names & set().union(*BANDS)


def test_the_top_holds_only_what_a_user_runs_or_opens():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert {line.split("/")[0] for line in tracked.splitlines() if not line.startswith(".")} == TOP


def test_the_jvm_machinery_lives_together_in_one_sub_part():
    jvm = ROOT / "shoptoolkit" / "jvm"
    assert {module_name(path) for path in jvm.glob("*.py") if path.name != "__init__.py"} == JVM
    assert (jvm / "log4j2.properties").is_file()
    assert (jvm / "java" / "shoptoolkit" / "AtomicLocalLogStore.java").is_file()


def test_the_file_check_s_two_paths_live_together_in_one_sub_part():
    folder = ROOT / "shoptoolkit" / "file_check"
    assert {module_name(path) for path in folder.glob("*.py") if path.name != "__init__.py"} == FILE_CHECK


def test_the_storage_lives_together_in_one_sub_part():
    folder = ROOT / "shoptoolkit" / "storage"
    assert {module_name(path) for path in folder.glob("*.py") if path.name != "__init__.py"} == STORAGE


def test_every_module_of_the_toolkit_has_a_band():
    assert {module_name(path) for path in modules()} == set().union(*BANDS)


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_a_module_imports_only_its_own_band_or_below(path):
    above = sorted(name for name in toolkit_imports(path) if band(name) > band(module_name(path)))
    assert above == [], f"{module_name(path)} imports {above}, from a band above its own"


@pytest.mark.parametrize("path", modules() + sorted((ROOT / "dags").glob("*.py")), ids=module_name)
def test_a_module_reads_in_a_screen_or_two(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_FILE_LINES
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == [], f"{path.name}: functions over {MAX_FUNCTION_LINES} lines: {long}"


@pytest.mark.parametrize("path", [ROOT / "README.md", *sorted((ROOT / "bench").glob("*.py"))], ids=module_name)
def test_the_readme_and_each_benchmark_stay_within_250_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 250
