"""A Spark standalone cluster for tests: one master and one worker (or more) from pyspark's own jars, on
127.0.0.1.

    with StandaloneCluster(folder) as cluster:      # up when the worker has registered
    with StandaloneCluster(folder, workers=2):      # two workers of one core each
        env = cluster.driver_env()                   # SPARK_MASTER and the shared secret for a script

Both daemons read a properties file (mode 600) that turns on spark.authenticate with a random secret and
turns off the master's REST submission server; SPARK_LOCAL_IP=127.0.0.1 keeps their web UIs on loopback.
Each runs in its own process group (the worker's executors join the worker's), stopped by group at the end.
"""
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from conftest import group_members

WORKER_CORES, WORKER_MEMORY = "1", "1g"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def spark_home() -> str:
    import pyspark
    return str(Path(pyspark.__file__).resolve().parent)


class StandaloneCluster:
    def __init__(self, folder: Path, workers: int = 1):
        self.folder, self.secret, self.workers = folder, secrets.token_hex(16), workers
        self.port, self.ui_port = free_port(), free_port()
        self.worker_ui_ports = [free_port() for _ in range(workers)]
        self.worker_ui_port = self.worker_ui_ports[0]
        self.processes, self.started_in = [], None

    def __enter__(self):
        started = time.monotonic()
        conf = self.write_conf()
        deploy = [str(Path(spark_home()) / "bin" / "spark-class"), "org.apache.spark.deploy"]
        self.start("master", [deploy[0], f"{deploy[1]}.master.Master", "--host", "127.0.0.1", "--port",
                              str(self.port), "--webui-port", str(self.ui_port), "--properties-file", conf])
        for number, ui_port in enumerate(self.worker_ui_ports):
            work = self.folder / ("work" if number == 0 else f"work{number + 1}")
            self.start(f"worker{number + 1 if number else ''}",
                       [deploy[0], f"{deploy[1]}.worker.Worker", self.url, "--host", "127.0.0.1", "--cores",
                        WORKER_CORES, "--memory", WORKER_MEMORY, "--webui-port", str(ui_port), "--work-dir",
                        str(work), "--properties-file", conf])
        try:
            self.wait_for(lambda state: state.get("aliveworkers") == self.workers, "the workers to register", 180)
        except BaseException:  # __exit__ runs only after __enter__ returns: stop the daemons here
            self.stop()
            raise
        self.started_in = time.monotonic() - started
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    def write_conf(self) -> str:
        conf = self.folder / "cluster.conf"
        conf.touch(mode=0o600)
        conf.write_text(f"spark.authenticate true\nspark.authenticate.secret {self.secret}\n"
                        "spark.master.rest.enabled false\n")
        return str(conf)

    def start(self, name: str, command: list) -> None:
        env = {**os.environ, "SPARK_HOME": spark_home(), "SPARK_LOCAL_IP": "127.0.0.1",
               "PYSPARK_PYTHON": sys.executable}
        with open(self.folder / f"{name}.log", "w") as log:
            self.processes.append(subprocess.Popen(command, cwd=self.folder, env=env, stdout=log,
                                                   stderr=subprocess.STDOUT, start_new_session=True))

    def state(self) -> dict:
        """The master's own JSON view (workers, applications), read from its web UI on loopback."""
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{self.ui_port}/json/", timeout=5) as answer:
            return json.load(answer)

    def wait_for(self, ready, what: str, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            assert all(p.poll() is None for p in self.processes), f"a daemon exited; see {self.folder}/*.log"
            try:
                if ready(self.state()):
                    return
            except (OSError, ValueError):  # not up yet; or up, its JSON page not yet attached: it
                pass                        # answered /json/ with its HTML page for a moment (seen in CI)
            time.sleep(0.5)
        raise AssertionError(f"waited {seconds} s for {what}; see {self.folder}/*.log")

    def driver_env(self) -> dict:
        return {**os.environ, "SPARK_MASTER": self.url, "SPARK_AUTHENTICATE_SECRET": self.secret,
                "PYSPARK_PYTHON": sys.executable}

    def groups(self) -> list:
        return [p.pid for p in self.processes]

    def stop(self) -> None:
        """SIGTERM each process group (worker first, then master), SIGKILL what is left after 30 s."""
        for process in reversed(self.processes):
            stop_group(process.pid)
            process.wait(timeout=60)


def stop_group(group: int, grace: float = 30) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(group, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + grace
        while group_members(group) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not group_members(group):
            return


def listening(groups) -> set:
    """(address, port) of every TCP socket the processes of these groups listen on."""
    inodes = set()
    for group in groups:
        for pid in group_members(group):
            try:
                links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
            except OSError:
                continue
            inodes.update(link[8:-1] for link in links if link.startswith("socket:["))
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                address, port = fields[1].split(":")
                found.add((decode(address), int(port, 16)))
    return found


def decode(address: str) -> str:
    """/proc/net/tcp's hex address (32-bit words in host byte order) as text."""
    raw = b"".join(bytes.fromhex(address[i:i + 8])[::-1] for i in range(0, len(address), 8))
    return socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw)


def is_loopback(address: str) -> bool:
    return address in ("::1", "::ffff:127.0.0.1") or address.startswith("127.")
