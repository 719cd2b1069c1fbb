"""Build the toolkit's Delta log store: commits that stay whole when several processes write one table.

    python -m shoptoolkit.jvm.log_store            # make setup runs it once, after class_archive; seconds
    python -m shoptoolkit.jvm.log_store --status   # where its JAR is, or that there is none

java/shoptoolkit/AtomicLocalLogStore.java (beside this file) says why it exists: on a local disk, Delta's default store
for file: paths can let two processes commit the same table version, the second one replacing the
first. javac compiles it against Delta's storage JAR (in Spark's Ivy cache once Spark has started with
Delta) and Hadoop's client API (in pyspark's jars/); the JAR is kept beside the class archive, and
every session the toolkit starts (scripts, the Connect server, a cluster's driver) uses it from then on.
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

from shoptoolkit.jvm.spark_jvm import JVM_PARTS, cached_delta_jars, log_store_jar

SOURCE = JVM_PARTS / "java" / "shoptoolkit" / "AtomicLocalLogStore.java"


def javac() -> str:
    """The JDK's compiler: JAVA_HOME's, else the one on PATH."""
    home = os.environ.get("JAVA_HOME")
    found = str(Path(home) / "bin" / "javac") if home else shutil.which("javac")
    if not found or not Path(found).exists():
        raise SystemExit("no javac: building the log store needs a JDK 17 or newer (install one, or set JAVA_HOME)")
    return found


def class_path() -> str:
    """Delta's storage JAR and Hadoop's client API, the two things the store is compiled against."""
    storage = [jar for jar in cached_delta_jars() if "delta-storage" in jar]
    if not storage:
        raise SystemExit("Delta's JARs are not in Spark's cache yet: python class_archive.py starts Spark once and fetches them")
    pyspark = Path(importlib.util.find_spec("pyspark").submodule_search_locations[0])
    return os.pathsep.join(storage + [str(jar) for jar in sorted((pyspark / "jars").glob("hadoop-client-api-*.jar"))])


def build() -> Path:
    jar = log_store_jar()
    jar.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="log-store-") as classes:
        subprocess.run([javac(), "--release", "17", "-cp", class_path(), "-d", classes, str(SOURCE)], check=True)
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
