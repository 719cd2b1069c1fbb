"""spark-pipelines' local mode has one port on a machine: pipeline runs in different folders take turns.

    from shoptoolkit.engine.pipeline_port import local_port
    with local_port("/home/me/shop: run_pipeline.py") as held:   # waits, saying so, while another run has it
        ...                                                       # spark-pipelines run (held: the lock's fd)

With SPARK_REMOTE=local, spark-pipelines starts a Spark Connect server in its own process, and its client
dials it at localhost:15002: pyspark's client takes that port as fixed (only its test mode asks the server
for a port of its own), so the CLI cannot be given another. Two runs at once, in two project folders,
would both bind it, and the second would fail with a BindException. So a run holds a lock for the port,
one for the whole machine (in the temp folder), while spark-pipelines runs: run_pipeline.py and the
sdp_nightly DAG's run task. A run that finds it held prints one line naming the run that holds it, and
waits. Once it has the lock, it waits too until the port is free (the last run's JVM may still be
closing), and gives up in one line if another program keeps it.
"""
import fcntl
import socket
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from shoptoolkit.errors import ToolkitError

LOCAL_PORT = 15002  # pyspark's Spark Connect port when no other is given
FREE_WAIT = 60.0  # seconds for the port to be free once the lock is ours


def port_lock() -> Path:
    return Path(tempfile.gettempdir()) / f"shop-toolkit-spark-connect-{LOCAL_PORT}.lock"


def port_free() -> bool:
    """Nothing listens on 127.0.0.1:15002 (a socket could bind it)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # a closed connection's TIME_WAIT is no owner
        try:
            probe.bind(("127.0.0.1", LOCAL_PORT))
            return True
        except OSError:
            return False


def wait_free(seconds: float = FREE_WAIT) -> None:
    """Until the port is free; a ToolkitError after seconds."""
    deadline = time.monotonic() + seconds
    while not port_free():
        if time.monotonic() > deadline:
            raise ToolkitError(f"port {LOCAL_PORT} on this machine is held by a program that is not a pipeline "
                               f"run of this toolkit; spark-pipelines' local mode needs that port: stop it")
        time.sleep(0.5)


@contextmanager
def local_port(who: str, show=None):
    """Hold the machine's lock on spark-pipelines' port while the block runs; yield its descriptor (for the
    CLI to hold it too, so that it stays held until the CLI has ended). who: this run, as the line of a
    run that waits for it names it. show: where the waiting line goes (stdout by default)."""
    show = show or (lambda line: print(line, flush=True, file=sys.stdout))
    with open(port_lock(), "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            show(f"waiting for port {LOCAL_PORT}: the pipeline run of {lock.read().strip() or 'another folder'} "
                 f"has it (spark-pipelines' local mode has that port only)")
            fcntl.flock(lock, fcntl.LOCK_EX)
        lock.truncate(0)
        lock.write(f"{who}\n")
        lock.flush()
        wait_free()
        yield lock.fileno()
