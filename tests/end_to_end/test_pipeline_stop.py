"""A pipeline run stopped by SIGTERM (timeout, a scheduler ending the task) cleans up after itself: its
copy of the spec is removed, and spark-pipelines' CLI and the CLI's JVM end with it. The run is stopped
once its JVM is running, so every process a run has is there to be ended. While it runs, a second run on
its folder is refused, naming it (tests/end_to_end/test_pipeline_lock.py); once it has ended, its lock is free."""
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, group_members, root_at, wait_for
from run_pipeline import only_run

pytestmark = pytest.mark.usefixtures("pipeline_turn")  # its run's lines are spark-pipelines' own: no wait


def group_runs(group: int, marker: bytes) -> bool:
    """A live process of the group has marker in its command line."""
    for pid in group_members(group):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
        except OSError:
            continue
    return False


def test_a_run_stopped_by_sigterm_removes_its_spec_copy_and_ends_its_processes(tmp_path):
    spec = shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines",  # not the copy of a run going on there
                           ignore=shutil.ignore_patterns(".run-*.yml")) / "spark-pipeline.yml"
    command = ["run_pipeline.py", "--spec", str(spec), "--root", str(tmp_path)]
    run = subprocess.Popen([sys.executable, str(ROOT / command[0]), *command[1:]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: group_runs(run.pid, b"pyspark.pipelines.cli"), "spark-pipelines CLI", 60, every=0.1)
        wait_for(lambda: group_runs(run.pid, b"org.apache.spark.deploy.SparkSubmit"), "JVM of the CLI", 60, every=0.1)
        [copy] = spec.parent.glob(".run-*.yml")  # the run's copy, beside the spec it was given
        second = subprocess.run([sys.executable, str(ROOT / command[0]), "--root", str(tmp_path)],
                                capture_output=True, text=True, timeout=120)
        assert (second.returncode, second.stdout, second.stderr) == (1, "", (
            f"error: run_pipeline.py is already running on this folder (pid {run.pid}: {shlex.join(command)}; "
            f"lake/_pipeline/run.lock): wait for it to end\n"))
        os.kill(run.pid, signal.SIGTERM)  # the run's own process only: it must end the others itself
        out, err = run.communicate(timeout=90)
        assert (run.returncode, err) == (143, "stopped by SIGTERM: spark-pipelines ended\n")
        assert re.fullmatch(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d: .*\n)+", out)  # only spark-pipelines' own lines
        assert f"Loading pipeline spec from {copy}..." in out
        assert list(spec.parent.glob(".run-*.yml")) == []
        wait_for(lambda: group_members(run.pid) == [], "end of every process of the run", 30, every=0.1)
        with root_at(tmp_path), only_run("run_pipeline.py"):  # freed with the run's end
            pass
    finally:
        if group_members(run.pid):  # only when an assertion above failed
            os.killpg(run.pid, signal.SIGKILL)
