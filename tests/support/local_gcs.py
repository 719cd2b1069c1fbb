"""A local Google Cloud Storage server for the toolkit's tests and for a first try on a bucket:
fake-gcs-server, built from source with Go by `make test-setup`, on a free loopback port.

    python tests/support/local_gcs.py --build   # make test-setup: build it once (Go fetches its modules)
    python tests/support/local_gcs.py           # make run-gcs: September on gs://shop/course, as make run

    with LocalGcs() as gcs:          # a test's server: its bucket made, stopped on the way out
        env = gcs.env("course")      # STORAGE_EMULATOR_HOST, SHOP_ROOT=gs://shop/course
    LocalGcs(port, folder=objects)   # its objects in a folder: a server started again there has them

The binary stays in a folder beside the S3 connector's (SHARE); a test never builds or downloads it. The
scripts find the server where Google's own clients look: STORAGE_EMULATOR_HOST.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from local_s3 import course  # noqa: E402
from shoptoolkit.places import SHARE  # noqa: E402

VERSION = "v1.56.1"
HOME = SHARE / f"fake-gcs-server-{VERSION}"
BINARY = HOME / "bin" / "fake-gcs-server"
GO = shutil.which("go") or "/usr/local/go/bin/go"
BUCKET = "shop"


def build() -> str:
    """Build the server into HOME/bin unless it is there; a line saying what was done. Go keeps the modules
    it fetched and its build cache where it always does (`go env GOMODCACHE GOCACHE`), as pip keeps its
    wheels: another clone on the machine builds in seconds, a new machine in about a minute and a half."""
    if BINARY.exists():
        return f"fake-gcs-server {VERSION}: {BINARY} is there"
    env = {**os.environ, "GOBIN": str(HOME / "bin"), "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
    started = time.monotonic()
    subprocess.run([GO, "install", f"github.com/fsouza/fake-gcs-server@{VERSION}"], env=env, check=True)
    took = time.monotonic() - started
    return f"fake-gcs-server {VERSION}: built in {took:.0f} s, {BINARY.stat().st_size / 2**20:.1f} MiB, {BINARY}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LocalGcs:
    """fake-gcs-server on 127.0.0.1 and a free port (or the port given), with BUCKET made; in a process group
    of its own, stopped by it. Its objects are in memory and go with it, or in folder, where a server
    started again on them finds them."""

    def __init__(self, port: int = 0, folder=None):
        self.port, self.folder = port or free_port(), folder
        self.url = f"http://127.0.0.1:{self.port}"

    def __enter__(self):
        if not BINARY.exists():
            raise RuntimeError(f"no fake-gcs-server at {BINARY}: make test-setup builds it")
        backend = ["-backend", "filesystem", "-filesystem-root", str(self.folder)] if self.folder else [
            "-backend", "memory"]
        self.process = subprocess.Popen(
            [str(BINARY), "-scheme", "http", "-host", "127.0.0.1", "-port", str(self.port), *backend,
             "-public-host", f"127.0.0.1:{self.port}", "-log-level", "error"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            self.wait_up()
            if BUCKET not in self.buckets():
                self.make_bucket(BUCKET)
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)  # its own group: start_new_session
        except ProcessLookupError:
            pass  # it has ended
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def wait_up(self, seconds: float = 20) -> None:
        deadline = time.monotonic() + seconds
        while True:
            try:
                urllib.request.urlopen(f"{self.url}/storage/v1/b", timeout=2).read()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"fake-gcs-server did not start on {self.url}") from None
                time.sleep(0.1)

    def buckets(self) -> list:
        with urllib.request.urlopen(f"{self.url}/storage/v1/b", timeout=10) as answer:
            return [bucket["name"] for bucket in json.load(answer).get("items", [])]

    def make_bucket(self, name: str) -> None:
        request = urllib.request.Request(f"{self.url}/storage/v1/b?project=shop", method="POST",
                                         data=json.dumps({"name": name}).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=10).read()

    def env(self, prefix: str) -> dict:
        """This process's environment with the server and a root below BUCKET/prefix (no other SHOP_)."""
        env = {key: value for key, value in os.environ.items()
               if not key.startswith("SHOP_") and key != "GOOGLE_APPLICATION_CREDENTIALS"}
        return {**env, "STORAGE_EMULATOR_HOST": self.url, "SHOP_ROOT": f"gs://{BUCKET}/{prefix}"}


def main(argv) -> int:
    if argv == ["--build"]:
        print(build())
        return 0
    with LocalGcs() as gcs:
        env = gcs.env("course")
        print(f"a local GCS server on {gcs.url}; SHOP_ROOT={env['SHOP_ROOT']}", flush=True)
        return course(env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
