"""The Makefile's ways in, run in a copy of the checkout as git holds it: `make run` prints what the
README's front door shows, `make run-s3` and `make run-gcs` the same on a local S3 and GCS server, `make bench`'s scripts start. (`make pipeline`'s two commands are the
pipeline story's first run and check, in tests/end_to_end/test_pipeline.py: a second pipeline run here could meet
another test's on spark-pipelines' fixed local Connect port, 15002.)

The copy's .venv points at the Python running these tests, set up already: its files are dated in the
past, so make takes the venv's setup as done and runs the target's own commands."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.timeout(1200)

TIME = re.compile(r"\(\d+\.\d+ s\)$")
LONG_AGO = 946684800  # 2000-01-01: older than the venv's setup markers


def checkout_copy(folder: Path) -> Path:
    """The files git tracks, as a fresh clone has them, and .venv pointing at this Python's venv."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True)
    for name in filter(None, tracked.stdout.split("\0")):
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / name, target)
        os.utime(target, (LONG_AGO, LONG_AGO))
    (folder / ".venv").symlink_to(Path(sys.prefix), target_is_directory=True)
    return folder


def make(folder: Path, target: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("SHOP_ROOT", "SPARK_REMOTE", "MAKEFLAGS")}
    return subprocess.run(["make", "--no-print-directory", target], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=1100)


def front_door_output() -> list:
    """The lines the README says `make run` ends with: the second block of its first section."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Two commands on a fresh clone", 1)[1]
    return section.split("\n## ", 1)[0].split("```")[3].strip("\n").splitlines()


def untimed(lines: list) -> list:
    return [TIME.sub("(N s)", line) for line in lines]


def test_make_run_ends_as_the_readme_shows(tmp_path):
    folder = checkout_copy(tmp_path / "clone")
    done = make(folder, "run")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    expected = front_door_output()
    assert untimed(done.stdout.splitlines()[-len(expected):]) == untimed(expected)
    assert done.stdout.splitlines()[:2] == [".venv/bin/python make_days.py --clean",
                                            "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, "
                                            "130 orders"]
    assert (folder / "lake" / "orders_daily" / "_delta_log").is_dir()


@pytest.mark.parametrize("target, server, root", [("run-s3", "S3", "s3a://shop/course"),
                                                  ("run-gcs", "GCS", "gs://shop/course")])
def test_make_run_on_a_local_store_ends_as_make_run_does(target, server, root, tmp_path, september_template):
    """make run-s3 (tests/support/local_s3.py, moto's server) and make run-gcs (tests/support/local_gcs.py,
    fake-gcs-server): September on a bucket of a server on a loopback port, started and stopped by the
    command, backfill.py's 30 runs printing what they print on a folder (the session's September, loaded
    by the same command), with make run's closing lines and calendar."""
    folder = checkout_copy(tmp_path / "clone")
    done = make(folder, target)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == f".venv/bin/python tests/support/local_{server.lower()}.py"
    assert re.fullmatch(rf"a local {server} server on http://127\.0\.0\.1:\d+; SHOP_ROOT={root}", lines[1])
    assert lines[2:4] == ["$ python make_days.py",
                          "wrote 30 files to landing/orders/: 2026-09-01.csv .. 2026-09-30.csv, 130 orders"]
    expected = front_door_output()
    expected[1] = "$ python check_month.py 2026-09"
    assert untimed(lines[-len(expected):]) == untimed(expected)
    assert lines[4] == "$ python backfill.py 2026-09-02 2026-10-01" and len(lines) == 5 + 30 + len(expected)
    on_folder = (september_template / "backfill.out").read_text(encoding="utf-8").splitlines()
    assert [TIME.sub("", line) for line in lines[5:5 + len(on_folder)]] == [TIME.sub("", line) for line in on_folder]


def test_make_bench_runs_the_bench_scripts_and_each_starts(tmp_path):
    folder = checkout_copy(tmp_path / "clone")
    planned = subprocess.run(["make", "--no-print-directory", "-n", "bench"], cwd=folder, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    scripts = [line.split()[1] for line in planned if line.startswith(".venv/bin/python bench/")]
    assert scripts == ["bench/bench_commits.py", "bench/bench_backfill.py", "bench/bench_warm.py",
                       "bench/bench_scale.py", "bench/bench_engine.py", "bench/bench_cold_day.py",
                       "bench/bench_refused.py", "bench/bench_jit.py", "bench/bench_upkeep.py", "bench/bench_cluster.py",
                       "bench/bench_buckets.py", "bench/bench_s3_requests.py"]
    for script in sorted(path.name for path in (folder / "bench").glob("bench_*.py")):
        done = subprocess.run([sys.executable, f"bench/{script}", "--help"], cwd=folder, capture_output=True,
                              text=True, timeout=120)
        assert (done.returncode, done.stderr) == (0, ""), script
        assert done.stdout.startswith("usage: "), script
