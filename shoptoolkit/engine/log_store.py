"""Build the toolkit's Java classes: the Delta log store whose commits stay whole when several processes
write one table, and the held write of a big day's one-job load.

    python -m shoptoolkit.engine.log_store            # make setup runs it once, after class_archive; seconds
    python -m shoptoolkit.engine.log_store --status   # where its JAR is, or that there is none

java/shoptoolkit/ (beside this file) holds them, each saying why it exists: AtomicLocalLogStore.java (on a
local disk, Delta's default store for file: paths can let two processes commit the same table version,
the second one replacing the first), HeldWrite.java (a write whose commit waits for the days' facts,
shoptoolkit/writing/held_write.py), DayFacts.java (those facts, counted by the write's own tasks) and
CommonLine.java (a till's common line found and typed in one pass, for that write). javac compiles them
against Delta's JARs (in Spark's Ivy cache once Spark has started with Delta) and Spark's (in pyspark's
jars/); the JAR is kept beside the class archive, and every session the toolkit starts (scripts, the
Connect server, a cluster's driver) uses it from then on.
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from shoptoolkit.engine.spark_jvm import cached_delta_jars, log_store_jar
from shoptoolkit.places import ENGINE_PARTS

SOURCES = sorted((ENGINE_PARTS / "java" / "shoptoolkit").glob("*.java"))


def javac() -> str:
    """The JDK's compiler: JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "javac") if home else shutil.which("javac")
    if not found or not Path(found).exists():
        raise SystemExit("no javac: building the log store needs a JDK 17 or newer (install one, or set JAVA_HOME)")
    return found


def class_path() -> str:
    """Delta's JARs and Spark's (Hadoop's client API among them): what the classes are compiled against."""
    delta = cached_delta_jars()
    if not delta:
        raise SystemExit("Delta's JARs are not in Spark's cache yet: python class_archive.py starts Spark once and fetches them")
    pyspark = Path(importlib.util.find_spec("pyspark").submodule_search_locations[0])
    return os.pathsep.join(delta + [str(pyspark / "jars" / "*")])


def build() -> Path:
    jar = log_store_jar()
    jar.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="log-store-") as classes:
        subprocess.run([javac(), "--release", "17", "-cp", class_path(), "-d", classes, *map(str, SOURCES)], check=True)
        partial = jar.with_suffix(".partial")
        with zipfile.ZipFile(partial, "w") as archive:
            for path in sorted(Path(classes).rglob("*.class")):
                archive.write(path, path.relative_to(classes).as_posix())
        os.replace(partial, jar)  # one rename: a session sees all of it or none
    return jar


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--status", action="store_true", help="say where the JAR is, build nothing")
    args = parser.parse_args(argv)
    if args.status:
        print(f"log store: {log_store_jar()}" if log_store_jar().exists() else "no log store yet: python log_store.py")
        return 0
    print(f"log store: {build()}")
    return 0


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    sys.exit(main())
