"""Pipeline runs of two project folders at once take turns for spark-pipelines' one local port (15002):
the second prints one line naming the first and waits, then both load their folder's September. A port
that another program keeps is refused in one line (shoptoolkit/engine/pipeline_port.py)."""
import socket
import subprocess
import sys

import pytest
from pyspark.sql import functions as F

from conftest import ROOT, group_members, own_group, wait_for
from shoptoolkit.engine.pipeline_port import LOCAL_PORT, local_port, wait_free
from shoptoolkit.errors import ToolkitError

# two pipeline runs, one after the other; none of another test's beside them (conftest.pipeline_turn)
pytestmark = [pytest.mark.timeout(1200), pytest.mark.usefixtures("pipeline_turn")]


def make_september(folder):
    folder.mkdir()
    subprocess.run([sys.executable, str(ROOT / "make_days.py")], cwd=folder, check=True, capture_output=True)


def running_cli(group: int) -> bool:
    """The run's spark-pipelines CLI has started: it starts only once the run holds the port's lock."""
    for pid in group_members(group):
        try:
            if b"pyspark.pipelines.cli" in open(f"/proc/{pid}/cmdline", "rb").read():
                return True
        except OSError:
            continue
    return False


def month_by_day(spark, folder) -> tuple:
    view = spark.read.format("delta").load(str(folder / "lake" / "orders_by_day"))
    return view.count(), view.agg(F.sum("orders")).first()[0]


def test_two_folders_at_once_the_second_waits_for_the_port_then_both_load(spark, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    make_september(first)
    make_september(second)
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True}
    with own_group([sys.executable, str(ROOT / "run_pipeline.py"), "--root", str(first)], **pipes) as one:
        wait_for(lambda: running_cli(one.pid), "the first run's spark-pipelines CLI", 120, every=0.1)
        with own_group([sys.executable, str(ROOT / "run_pipeline.py"), "--root", str(second)], **pipes) as two:
            out_two, err_two = two.communicate(timeout=900)
        out_one, err_one = one.communicate(timeout=900)
    assert (one.returncode, two.returncode) == (0, 0), (err_one, err_two)
    assert out_two.splitlines()[0] == (f"waiting for port {LOCAL_PORT}: the pipeline run of {first}: "
                                       f"run_pipeline.py --root {first} has it (spark-pipelines' local mode has "
                                       f"that port only)")
    assert "waiting for port" not in out_one
    assert month_by_day(spark, first) == month_by_day(spark, second) == (30, 130)


def test_a_port_kept_by_another_program_is_refused_in_one_line():
    with local_port("tests/end_to_end/test_pipeline_port.py"), socket.socket() as other:
        other.bind(("127.0.0.1", LOCAL_PORT))
        other.listen()
        with pytest.raises(ToolkitError) as error:
            wait_free(seconds=1)
    assert str(error.value) == (f"port {LOCAL_PORT} on this machine is held by a program that is not a pipeline "
                                f"run of this toolkit; spark-pipelines' local mode needs that port: stop it")
