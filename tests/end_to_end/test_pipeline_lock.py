"""One run_pipeline.py run at a time on a project folder: a second run (or dry run) is refused at once,
in one line naming the run that holds the folder, before anything is written or Spark starts; the lock
is freed when its holder dies. The holder here is a small process that takes the run's lock and waits
(no Spark); tests/end_to_end/test_pipeline_stop.py refuses a second run beside a real one."""
import os
import shutil
import signal
import subprocess
import sys

import pytest

from conftest import ROOT, group_members, root_at, run_script, wait_for
from run_pipeline import only_run

RUN_COPIES = shutil.ignore_patterns(".run-*.yml")  # a run going on in the toolkit's own pipelines/
HOLDER = "run_pipeline.py --window 2026-09-10 2026-09-12"
HOLD = ("import sys, time; sys.path.insert(0, sys.argv[1]); from run_pipeline import only_run\n"
        "with only_run(sys.argv[2]):\n    print('held', flush=True); time.sleep(600)")


@pytest.fixture
def holder(tmp_path):
    """A process holding tmp_path's pipeline lock, noted as HOLDER; killed at the end if still there."""
    held = subprocess.Popen([sys.executable, "-c", HOLD, str(ROOT), HOLDER], cwd=tmp_path, text=True,
                            stdout=subprocess.PIPE, start_new_session=True)
    try:
        assert held.stdout.readline() == "held\n"
        yield held
    finally:
        if group_members(held.pid):
            os.killpg(held.pid, signal.SIGKILL)
        held.wait()


@pytest.mark.parametrize("options", [[], ["--dry-run"]], ids=["run", "dry run"])
def test_a_second_run_is_refused_at_once_naming_the_first(options, holder, tmp_path):
    spec = shutil.copytree(ROOT / "pipelines", tmp_path / "pipelines", ignore=RUN_COPIES) / "spark-pipeline.yml"
    done = run_script("run_pipeline.py", "--spec", str(spec), *options, cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"error: run_pipeline.py is already running on this folder (pid {holder.pid}: "
                           f"{HOLDER}; lake/_pipeline/run.lock): wait for it to end\n")
    # refused before its spec copy, its Spark settings or spark-pipelines' log were written
    assert sorted(path.name for path in (tmp_path / "lake" / "_pipeline").iterdir()) == ["run.lock"]
    assert list(spec.parent.glob(".run-*.yml")) == [] and not (tmp_path / "logs").exists()
    assert holder.poll() is None


def test_the_lock_is_freed_when_its_holder_dies(holder, tmp_path):
    os.killpg(holder.pid, signal.SIGKILL)  # no finally, no exit handler: the OS frees the lock
    wait_for(lambda: group_members(holder.pid) == [], "the holder's end", 30, every=0.1)
    with root_at(tmp_path), only_run("run_pipeline.py --dry-run"):
        note = (tmp_path / "lake" / "_pipeline" / "run.lock").read_text()
    assert note == f"pid {os.getpid()}: run_pipeline.py --dry-run\n"
