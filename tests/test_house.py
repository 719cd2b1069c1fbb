"""The house stays as the README draws it: three bands of modules, each importing only below itself,
and every module short enough to read in a screen or two."""
import ast

import pytest

from conftest import ROOT

# The bands, bottom up: the shared helpers, the day functions, the drivers that loop or serve.
HELPERS = {"table_schema", "errors", "conflicts", "project_paths", "retry", "run_args", "delta_log_check",
           "spark_jvm", "day_file_check", "expression_mode", "delta_session", "connect_server", "pipeline_setup",
           "connect_client", "first_load"}
DAYS = {"make_days", "load_day", "load_days", "check_day", "restore_day", "partition_table", "history", "failed_day",
        "day_states", "month_calendar", "reprocess"}
DRIVERS = {"backfill", "parallel", "check_month", "class_archive", "log_store", "spark_server", "run_pipeline",
           "check_pipeline"}
BANDS = [HELPERS, DAYS, DRIVERS]
MAX_FILE_LINES = 200
MAX_FUNCTION_LINES = 30


def band(name: str) -> int:
    return next(number for number, members in enumerate(BANDS) if name in members)


def toolkit_imports(path) -> set:
    """The toolkit's modules that path imports (at its top or inside a function)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names & set().union(*BANDS)


def modules() -> list:
    return sorted(ROOT.glob("*.py"))


def test_every_module_of_the_toolkit_has_a_band():
    assert {path.stem for path in modules()} == set().union(*BANDS)


@pytest.mark.parametrize("path", modules(), ids=lambda path: path.name)
def test_a_module_imports_only_its_own_band_or_below(path):
    above = sorted(name for name in toolkit_imports(path) if band(name) > band(path.stem))
    assert above == [], f"{path.name} imports {above}, from a band above its own"


@pytest.mark.parametrize("path", modules() + sorted((ROOT / "dags").glob("*.py")), ids=lambda path: path.name)
def test_a_module_reads_in_a_screen_or_two(path):
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_FILE_LINES
    long = [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(text))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == [], f"{path.name}: functions over {MAX_FUNCTION_LINES} lines: {long}"
