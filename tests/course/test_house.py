"""The house stays as the README draws it: at the top only what a user runs or opens, the machinery in
the shoptoolkit package's rooms, imports running one way in the order ROOMS writes down (no circle, no
room reaching one after its own), and every module short enough to read in a screen or two."""
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
# The order the imports run in, written once, bottom up: a module imports only from its own room or a
# room before it. The package's rooms first (its base modules, then one subpackage a concern), then the
# scripts' shared helper, the day scripts, the drivers that loop or serve.
BASE = {f"shoptoolkit.{name}" for name in ("errors", "dates", "places", "table_schema", "row_values")}
PACKAGE_ROOMS = ["shoptoolkit.storage", "shoptoolkit.engine", "shoptoolkit.till", "shoptoolkit.table",
                 "shoptoolkit.truth", "shoptoolkit.writing"]
SESSION = {"delta_session"}
DAYS = {"make_days", "load_day", "check_day", "restore_day", "partition_table", "history", "failed_day", "upkeep"}
DRIVERS = {"backfill", "parallel", "check_month", "spark_server", "run_pipeline", "check_pipeline"}
ROOMS = [BASE, *[{room} for room in PACKAGE_ROOMS], {"shoptoolkit.run_args"}, SESSION, DAYS, DRIVERS]
MAX_FILE_LINES = 200
MAX_PACKAGE_IMPORTS = 5
MAX_FUNCTION_LINES = 30


def room(name: str) -> int:
    """The place in ROOMS of a module's room: its own name's, or its subpackage's."""
    return next(number for number, members in enumerate(ROOMS)
                if name in members or any(name.startswith(f"{member}.") for member in members))


def module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> list:
    return sorted(ROOT.glob("*.py")) + sorted((ROOT / "shoptoolkit").rglob("*.py"))


PATHS = {module_name(path): path for path in modules()}
KNOWN = set(PATHS)


def toolkit_imports(path) -> set:
    """The toolkit's modules that path imports (at its top or inside a function), with the packages whose
    __init__ such an import runs first, but for path's own packages (Python is already running those)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    names = {".".join(name.split(".")[:end]) for name in names for end in range(1, name.count(".") + 2)}
    own = module_name(path)
    return {name for name in names & KNOWN if name != own and not own.startswith(f"{name}.")}


IMPORTS = {module_name(path): toolkit_imports(path) for path in modules()}


def test_the_top_holds_only_what_a_user_runs_or_opens():
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert {line.split("/")[0] for line in tracked.splitlines() if not line.startswith(".")} == TOP


def test_every_room_of_the_package_says_its_job_in_its_first_line():
    for name in ["shoptoolkit", *PACKAGE_ROOMS]:
        init = ROOT.joinpath(*name.split("."), "__init__.py")
        assert ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))), f"{init} says no job"


def test_the_engine_keeps_its_jvm_parts_beside_it():
    engine = ROOT / "shoptoolkit" / "engine"
    assert (engine / "log4j2.properties").is_file()
    assert (engine / "java" / "shoptoolkit" / "AtomicLocalLogStore.java").is_file()


def test_every_module_of_the_toolkit_has_a_room():
    assert sorted(name for name in KNOWN if name != "shoptoolkit" and room_or_none(name) is None) == []


def room_or_none(name):
    try:
        return room(name)
    except StopIteration:
        return None


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_a_module_imports_only_its_own_room_or_one_before_it(path):
    name = module_name(path)
    if name == "shoptoolkit":
        return
    later = sorted(other for other in IMPORTS[name] if other != "shoptoolkit" and room(other) > room(name))
    assert later == [], f"{name} imports {later}, from a room after its own"


def test_no_import_circle_anywhere():
    """Between rooms and inside each: the modules can be put in an order where each imports only earlier ones."""
    waiting, done = dict(IMPORTS), set()
    while waiting:
        ready = [name for name, imported in waiting.items() if imported <= done]
        if not ready:
            break
        done |= set(ready)
        for name in ready:
            del waiting[name]
    assert sorted(waiting) == [], "modules in an import circle (or waiting on one)"


def test_inside_the_package_a_module_imports_modules_never_a_room_s_face():
    """A room's __init__ may gather names for the scripts; inside the package one takes them from their
    modules, so that no module waits on a room's __init__ that is still being run."""
    faces = {"shoptoolkit", *PACKAGE_ROOMS}
    taking = sorted(f"{name} takes {node.module}'s names" for name, path in PATHS.items()
                    if name.startswith("shoptoolkit") for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom) and node.module in faces
                    and any(f"{node.module}.{alias.name}" not in KNOWN for alias in node.names))
    assert taking == []


def test_a_room_s_face_hides_none_of_its_modules():
    """A name a room's __init__ gathers is never one of its modules' names (the module would read as that name)."""
    hidden = sorted(f"{room}.{alias.asname or alias.name}" for room in PACKAGE_ROOMS
                    for node in ast.walk(ast.parse(PATHS[room].read_text(encoding="utf-8")))
                    if isinstance(node, ast.ImportFrom) for alias in node.names
                    if f"{room}.{alias.asname or alias.name}" in KNOWN)
    assert hidden == []


def test_nothing_outside_storage_tests_a_root_s_scheme():
    """A store's parts are asked of storage/ (parts.py): no other module compares a root with `s3a://` and kin."""
    schemes = ("s3a", "gs", "abfss")
    testing = sorted(f"{name}:{node.lineno}" for name, path in PATHS.items() if not name.startswith("shoptoolkit.storage")
                     for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("startswith", "endswith")
                     and any(isinstance(arg, ast.Constant) and str(arg.value).startswith(schemes) for arg in node.args))
    assert testing == []


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_script_takes_the_package_through_a_few_faces(name):
    """A script reads like the course's: delta_session and at most five imports of the package."""
    tree = ast.parse((ROOT / f"{name}.py").read_text(encoding="utf-8"))
    taken = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and (node.module or "").startswith("shoptoolkit")]
    assert len(taken) <= MAX_PACKAGE_IMPORTS, f"{name}.py imports the package {len(taken)} times: {taken}"


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


# The tests' house (docs/tests.md): a folder a domain, `pytest tests/<folder>` its quick answer; the helpers
# the tests import by name in support/; at the top only conftest.py and the model check's own files.
TESTS = ROOT / "tests"
TEST_FOLDERS = {"till", "storage", "engine", "table", "truth", "writing", "course", "oracle", "end_to_end"}
HELPERS = {"bundle", "course_month", "fingerprint", "holding", "local_gcs", "local_s3", "record_logs", "relay",
           "script_server", "standalone", "suite_jit"}


def importable_by_name() -> dict:
    """{module name: path} of what the tests import by its bare name: tests/' own files, the helpers and
    the test files (pytest puts each test file's folder on sys.path), and the model check's package."""
    paths = [*TESTS.glob("*.py"), *(TESTS / "support").glob("*.py"), *TESTS.glob("*/test_*.py"), TESTS / "model"]
    return {path.stem: path for path in paths}


def test_every_test_lives_in_a_domain_folder_and_every_helper_in_support():
    """No test file directly in tests/ or in support/, every domain folder holds tests, no folder is a
    package (pytest's import by folder), and the top holds conftest.py and the model check only."""
    assert {path.parent.relative_to(TESTS).as_posix() for path in TESTS.rglob("test_*.py")} == TEST_FOLDERS
    assert {path.stem for path in (TESTS / "support").glob("*.py")} == HELPERS
    assert {path.name for path in TESTS.glob("*.py")} == {"conftest.py", "model_check.py", "mutants.py"}
    assert sorted(path.relative_to(TESTS).as_posix() for path in TESTS.rglob("__init__.py")) == ["model/__init__.py"]


def test_no_module_of_the_tests_shares_a_name_with_one_of_the_package():
    """Its modules and subpackages, by their last names: a helper named as one (held_write.py was) leaves
    a bare import of that name to whichever comes first on sys.path."""
    package = {path.parent.name if path.stem == "__init__" else path.stem for path in (ROOT / "shoptoolkit").rglob("*.py")}
    assert sorted(set(importable_by_name()) & package) == []


def test_a_test_file_imports_test_files_of_its_own_folder_only():
    """Another folder's test file is on sys.path only once pytest has collected that folder: a helper
    two folders share goes to support/."""
    found = importable_by_name()
    across = sorted(f"{path.relative_to(TESTS)} imports {name}" for path in TESTS.glob("*/test_*.py")
                    for name in imported_among(path, found) if name.startswith("test_")
                    and found[name].parent != path.parent)
    assert across == []


def imported_among(path, names) -> set:
    """The modules among names that path imports (at its top or inside a function)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module}
    return {name.split(".")[0] for name in imported} & set(names)
