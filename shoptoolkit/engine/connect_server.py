"""The Spark Connect server's process: its command line, its start in a process group of its own, its end.

    from shoptoolkit.engine.connect_server import free_port, launch
    pid = launch(free_port(), token, log_path)

spark_server.py keeps the server's state and says what happened; this module only starts, finds
and ends the process (a local[*] Spark with Delta, listening on 127.0.0.1 only).
"""
import importlib.util
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from shoptoolkit.engine.spark_jvm import cached_delta_jars, delta_package, log_store
from shoptoolkit.engine.spark_settings import LOCAL_SETTINGS, SPARK_SETTINGS

SERVER_CLASS = "org.apache.spark.sql.connect.service.SparkConnectServer"
STOP_TIMEOUT = 30.0


def delta_jars() -> list:
    """--jars with Delta's two JARs from the Ivy cache, else --packages (the first start downloads them);
    and the toolkit's log store JAR once built (spark_jvm.log_store)."""
    jars = cached_delta_jars() + log_store()[0]
    packages = [] if cached_delta_jars() else ["--packages", delta_package()]
    return (["--jars", ",".join(jars)] if jars else []) + packages


def server_command(spark_home: Path, port: int) -> list:
    settings = {**SPARK_SETTINGS, **LOCAL_SETTINGS, **log_store()[1], "spark.connect.grpc.binding.address": "127.0.0.1",
                "spark.connect.grpc.binding.port": str(port)}
    command = [str(spark_home / "bin" / "spark-submit"), "--master", "local[*]", "--name", "shop-spark-server",
               "--class", SERVER_CLASS, *delta_jars()]
    for key, value in settings.items():
        command += ["--conf", f"{key}={value}"]
    return command + ["spark-internal"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def answers(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0



def launch(port: int, token: str, log_path: Path) -> int:
    """Start the server in its own session (process group), its output into the log; return its pid."""
    spark_home = Path(importlib.util.find_spec("pyspark").submodule_search_locations[0])
    env = {key: value for key, value in os.environ.items() if key not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE")}
    env.update(SPARK_HOME=str(spark_home), SPARK_CONNECT_AUTHENTICATE_TOKEN=token)  # env: not shown by ps
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "a") as log:
        return subprocess.Popen(server_command(spark_home, port), stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env, start_new_session=True).pid



def is_server(pid: int, port: int) -> bool:
    """True while pid is the Connect server started on port (not a later process that reuses the pid)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return SERVER_CLASS in command and f"spark.connect.grpc.binding.port={port}" in command



def end_group(pid: int) -> None:
    """SIGTERM to the server's process group, SIGKILL if it is still there after STOP_TIMEOUT."""
    for sig, wait in ((signal.SIGTERM, STOP_TIMEOUT), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not alive(pid):
            return


def alive(pid: int) -> bool:
    """pid runs: one of its threads is not a zombie. An ended server its parent has not reaped yet is
    a zombie; but a JVM's main thread also shows as one while its other threads still run its shutdown
    hooks, holding its port (seen here: the port still answered after the main thread had ended)."""
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return False
    return any(thread_state(task) not in ("Z", "X", "") for task in tasks)


def thread_state(task: Path) -> str:
    """A thread's state letter from /proc/PID/task/TID/stat ('' once it is gone)."""
    try:
        return (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""

