"""The project root and every path below it: landing/orders/ for the till's files, lake/orders_daily/
for the Delta table, logs/.

    from shoptoolkit.project_paths import day_file, set_root
    set_root("/Volumes/shop/course/files")     # once, in a notebook; or SHOP_ROOT, or a script's --root
    day_file("2026-09-15")                     # /Volumes/shop/course/files/landing/orders/2026-09-15.csv

The root is the folder you run in, or SHOP_ROOT, or a script's --root DIR: any absolute path, a Unity
Catalog Volume's /Volumes/... too, or a file:// URI of a local folder (file:///data/shop). Paths are
made absolute here because the JVM's working directory is not the root.
"""
import os
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

from shoptoolkit.table_schema import TABLE

ROOT_ENV = "SHOP_ROOT"
LANDING = Path("landing") / "orders"
LAKE = Path("lake")
LOGS = Path("logs")
# The crossover of the file check (docs/benchmarks.md, "Checks inside Spark"): from this many bytes of day
# files (a day's, or a commit's together; about 360,000 orders) a run checks them inside Spark
# (file_check/in_spark.py) rather than in Python, and a script's own driver gets Java's full JIT
# (delta_session.py), which halves that check's time.
BIG_FILES = 14_000_000


def local_folder(folder) -> Path:
    """A folder given as a path or as a file:// URI (file:///data/shop, file:/data/shop), as a path."""
    if str(folder).startswith("file:"):
        return Path(url2pathname(urlparse(str(folder)).path))
    return Path(folder)


def project_root() -> Path:
    """The folder landing/, lake/ and logs/ live below: SHOP_ROOT, else the folder you run in."""
    return local_folder(os.environ.get(ROOT_ENV) or Path.cwd()).resolve()


def set_root(folder) -> Path:
    """Make folder (a path or a file:// URI) the project root of this process, and of the processes it
    starts (SHOP_ROOT)."""
    os.environ[ROOT_ENV] = str(local_folder(folder).resolve())
    return project_root()


@contextmanager
def root_at(folder):
    """Work below folder for a while (an experiment, a warm-up), then below the root as it was."""
    before = os.environ.get(ROOT_ENV)
    try:
        yield set_root(folder)
    finally:
        if before is None:
            os.environ.pop(ROOT_ENV, None)
        else:
            os.environ[ROOT_ENV] = before


def landing_dir() -> Path:
    return project_root() / LANDING


def table_path() -> Path:
    return project_root() / LAKE / TABLE


def day_file(day) -> Path:
    return landing_dir() / f"{day}.csv"


def spark_log() -> Path:
    return project_root() / LOGS / "spark.log"


def shown(path: Path) -> str:
    """A path as the user knows it: relative to the project root (by default the folder they run in)."""
    try:
        return str(Path(path).relative_to(project_root()))
    except ValueError:
        return str(path)


def files_bytes(days) -> int:
    """How many bytes the files of days hold together (a missing file: none)."""
    paths = [day_file(day) for day in days]
    return sum(path.stat().st_size for path in paths if path.exists())
