"""Make a script's own Spark start faster: a Java class-data archive of the classes a run loads.

    python -m shoptoolkit.engine.class_archive            # build it once (make setup does); about a minute
    python -m shoptoolkit.engine.class_archive --status   # where it is, or that there is none

A script that starts its own Spark spends most of its first seconds loading and verifying some
20,000 Java classes (Spark's, Delta's, Scala's). Java 17 can save them, already parsed, in an
archive that every later JVM maps instead (class-data sharing, -XX:SharedArchiveFile). The archive
is built by a real run in a scratch folder (a few days' load and check, a month check, the history)
and kept beside the Python that runs the toolkit, named by the pyspark and delta-spark versions, so a
new venv or new versions get a new one. Without it the scripts run the same, only slower to start.

The archive is written by the JVM as it exits, so the file is checked (a JVM maps it) before it
takes its final name: a half-written archive would crash every JVM that maps it.
"""
import argparse
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shoptoolkit.engine.spark_jvm import DUMP_ENV, archive_path
from shoptoolkit.places import TOOLKIT
from shoptoolkit.storage.project_paths import set_root

DUMP_TIMEOUT = 300


def sample_run(folder: Path) -> None:
    """The work whose classes go into the archive, run in folder (the child process's job): the scripts
    themselves, each read by path as a notebook cell reads them (defined, not run) and its main called."""
    set_root(folder)
    script = {name: runpy.run_path(str(TOOLKIT / f"{name}.py")) for name in ("make_days", "backfill", "check_month",
                                                                             "history")}
    script["make_days"]["make_days"]()
    # check_month's verdict on a month of 4 loaded days is 1 (days missing): a finding, not a failure.
    for name, argv, codes in (("backfill", ["2026-09-02", "2026-09-05"], {0}), ("check_month", ["2026-09"], {0, 1}),
                              ("history", [], {0})):
        if script[name]["main"](argv) not in codes:
            raise SystemExit(f"the sample run failed at {name}")


def maps(archive: Path) -> bool:
    """A JVM starts with the archive mapped (a truncated one crashes it)."""
    run = subprocess.run(["java", f"-XX:SharedArchiveFile={archive}", "-version"], capture_output=True)
    return run.returncode == 0


def wait_for_group(group: int, timeout: float) -> None:
    """Until no process of the child's group is left: its JVM writes the archive as it exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        time.sleep(0.2)
    raise SystemExit(f"the sample run's JVM did not exit within {timeout:.0f} s")


def build() -> Path:
    archive = archive_path()
    archive.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="class-archive-") as scratch:
        partial = Path(scratch) / archive.name
        sample = [sys.executable, "-m", "shoptoolkit.engine.class_archive", "--sample-run", scratch]
        child = subprocess.Popen(sample, start_new_session=True, stdout=subprocess.DEVNULL, cwd=TOOLKIT,
                                 env={**os.environ, DUMP_ENV: str(partial)})
        code = child.wait(timeout=DUMP_TIMEOUT)
        wait_for_group(child.pid, DUMP_TIMEOUT)
        if code != 0 or not partial.exists() or not maps(partial):
            raise SystemExit(f"no class archive: the sample run ended with exit code {code}")
        shutil.move(partial, archive.with_suffix(".partial"))
        os.replace(archive.with_suffix(".partial"), archive)  # one rename: readers see all of it or none
    return archive


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--status", action="store_true", help="say where the archive is, build nothing")
    parser.add_argument("--sample-run", metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.sample_run:
        sample_run(Path(args.sample_run))
        return 0
    archive = archive_path()
    if args.status:
        print(f"class archive: {archive}" if archive.exists() else "no class archive yet: python -m shoptoolkit.engine.class_archive")
        return 0
    started = time.monotonic()
    size = build().stat().st_size / 2 ** 20
    print(f"class archive: {archive} ({size:.0f} MiB, built in {time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
