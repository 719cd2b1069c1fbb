"""The project root and every path below it: landing/orders/ for the till's files, lake/orders_daily/
for the Delta table, logs/.

    from shoptoolkit.storage.project_paths import day_file, set_root
    set_root("/Volumes/shop/course/files")     # once, in a notebook; or SHOP_ROOT, or a script's --root
    day_file("2026-09-15")                     # /Volumes/shop/course/files/landing/orders/2026-09-15.csv

The root is the folder you run in, or SHOP_ROOT, or a script's --root DIR: any absolute path, a Unity
Catalog Volume's /Volumes/... too, a file:// URI of a local folder (file:///data/shop), or a prefix of
an object store's bucket (s3a://BUCKET/PREFIX, gs://BUCKET/PREFIX; abfss:// is refused, untested):
landing/ and lake/ are then objects below it,
reached through shoptoolkit/storage/, and Spark is given the URIs. Local paths are made absolute here
because the JVM's working directory is not the root. logs/ is always a local folder (an object store
cannot append): below the root when it is a folder, else below the folder you run in.
"""
import os
from contextlib import contextmanager
from pathlib import Path

from shoptoolkit.storage.location import is_local, location
from shoptoolkit.table_schema import TABLE

ROOT_ENV = "SHOP_ROOT"
LANDING = Path("landing") / "orders"
LAKE = Path("lake")
LOGS = Path("logs")
# The crossover of a load (docs/benchmarks.md, "Many days in one job"): from this many bytes of day files (a
# day's, or a commit's together; about 150,000 orders) a run loads them in one Spark job that checks them
# (held_write.py), or checks them inside Spark (till/in_spark.py), rather than in Python first, and a
# script's own driver gets Java's full JIT (delta_session.py).
BIG_FILES = 6_000_000


def local_folder(folder):
    """A folder given as a path, a file:// URI (file:///data/shop, file:/data/shop) or an object store's
    URI, as a pathlib.Path or a storage ObjectPath (storage.location)."""
    return location(folder)


def project_root():
    """Where landing/ and lake/ live below: SHOP_ROOT, else the folder you run in (a Path or an ObjectPath)."""
    return location(os.environ.get(ROOT_ENV) or Path.cwd()).resolve()


def set_root(folder):
    """Make folder (a path, a file:// URI or an object store's URI) the project root of this process, and
    of the processes it starts (SHOP_ROOT)."""
    os.environ[ROOT_ENV] = str(location(folder).resolve())
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


def landing_dir():
    return project_root() / LANDING


def table_path():
    return project_root() / LAKE / TABLE


def day_file(day):
    return landing_dir() / f"{day}.csv"


def local_root() -> Path:
    """Where this machine's own files go (logs/, a server's state): the root when it is a folder, else
    the folder you run in."""
    root = project_root()
    return root if is_local(root) else Path.cwd().resolve()


def logs_dir() -> Path:
    return local_root() / LOGS


def spark_log() -> Path:
    return logs_dir() / "spark.log"


def shown(path) -> str:
    """A path as the user knows it: relative to the project root (by default the folder they run in)."""
    try:
        return str((Path(path) if isinstance(path, str) else path).relative_to(project_root()))
    except (TypeError, ValueError):  # TypeError: a local path beside an object store's root, or the reverse
        return str(path)


def files_bytes(days) -> int:
    """How many bytes the files of days hold together (a missing file: none). One stat a file: on an
    object store each is a request."""
    total = 0
    for day in days:
        try:
            total += day_file(day).stat().st_size
        except FileNotFoundError:
            pass
    return total
