"""Keep a warm Spark with Delta running for by-hand reruns: a local Spark Connect server.

    eval "$(python spark_server.py start)"   # start it; sets SPARK_REMOTE in this shell
    python load_day.py 2026-09-16            # every script now runs on the warm server
    python spark_server.py status            # up or not, and its port (exit 0 up, 1 not)
    python spark_server.py env               # the export line again, for another shell
    python spark_server.py stop

`start` prints one line on stdout, `export SPARK_REMOTE='sc://localhost:PORT/;token=TOKEN'`, and
everything else on stderr. The server listens on 127.0.0.1 only and refuses a client without the
token. Its state (pid, port, and the token in a file only you can read) is in .spark_server/ below
the folder you run in, its log in logs/spark_server.log. See docs/spark_server.md.
"""
import argparse
import json
import os
import secrets
import shlex
import shutil
import sys
import time
from pathlib import Path

from shoptoolkit.engine import alive, answers, end_group, free_port, is_server, launch
from shoptoolkit.run_args import ToolkitError, add_root, add_verbose, run_main
from shoptoolkit.storage import local_root, logs_dir, root_at, shown

STATE = Path(".spark_server")
START_TIMEOUT = 300.0  # seconds; a first start without Delta's JARs in the Ivy cache downloads them


def state_dir() -> Path:
    return local_root() / STATE


def server_log() -> Path:
    return logs_dir() / "spark_server.log"


def save_state(pid: int, port: int, token: str) -> None:
    state_dir().mkdir(mode=0o700, exist_ok=True)
    token_file = os.open(state_dir() / "token", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(token_file, "w") as handle:
        handle.write(token)
    (state_dir() / "server.json").write_text(json.dumps({"pid": pid, "port": port}))


def saved_state() -> dict:
    """The state this folder's last start saved, {pid, port, token}; {} when there is none."""
    try:
        state = json.loads((state_dir() / "server.json").read_text())
        state["token"] = (state_dir() / "token").read_text().strip()
    except (OSError, ValueError):
        return {}
    return state


def running() -> dict:
    """The server's state {pid, port, token} if the one this folder started is alive, else {}."""
    state = saved_state()
    return state if state and is_server(state["pid"], state["port"]) else {}


def remote_url(state: dict) -> str:
    return f"sc://localhost:{state['port']}/;token={state['token']}"


def export_line(state: dict) -> str:
    return f"export SPARK_REMOTE={shlex.quote(remote_url(state))}"


def wait_until_up(state: dict, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not answers(state["port"]):
        # alive, not is_server: the pid is this process's unreaped child, so it is the server, and its
        # command line reads empty for an instant while spark-submit execs spark-class, then java.
        if not alive(state["pid"]):
            raise ToolkitError(f"the Spark server stopped while starting; see {shown(server_log())}")
        if time.monotonic() > deadline:
            raise ToolkitError(f"the Spark server did not answer within {timeout:.0f} s; see {shown(server_log())}")
        time.sleep(0.5)


def warm_up(spark) -> None:
    """Two real runs and a history read in logs/warmup/ (then removed): the first load and check,
    a rerun over an existing table; what a by-hand rerun needs is then loaded and compiled."""
    from backfill import backfill
    from history import table_history
    from make_days import make_days
    folder = logs_dir() / "warmup"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    try:
        with root_at(folder):
            make_days()
            failed, closing = backfill(spark, "2026-09-02", "2026-09-03", show=lambda line: None)
            if failed:
                raise ToolkitError(f"the warm-up failed: {closing}")
            table_history(spark, 1)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def start(port=None) -> str:
    """Start a server (port None: a free one), wait until it answers, warm it up; return the export line."""
    found = running()
    if found:
        raise ToolkitError(f"a Spark server is already running here (pid {found['pid']}, port {found['port']}); "
                           f"python spark_server.py stop ends it")
    started = time.monotonic()
    state = {"port": port or free_port(), "token": secrets.token_urlsafe(32)}
    state["pid"] = launch(state["port"], state["token"], server_log())
    save_state(state["pid"], state["port"], state["token"])
    try:
        wait_until_up(state, START_TIMEOUT)
        from pyspark.sql import SparkSession
        spark = SparkSession.builder.remote(remote_url(state)).getOrCreate()
        warm_up(spark)
        spark.stop()
    except BaseException:
        end_group(state["pid"])
        shutil.rmtree(state_dir(), ignore_errors=True)
        raise
    print(f"Spark server up and warm in {time.monotonic() - started:.1f} s: pid {state['pid']}, "
          f"port {state['port']}, log {shown(server_log())}", file=sys.stderr)
    return export_line(state)


def stop() -> str:
    found = running()
    shutil.rmtree(state_dir(), ignore_errors=True)  # also a stale state, left by a server that died
    if not found:
        return "no Spark server is running here"
    end_group(found["pid"])
    return f"stopped the Spark server (pid {found['pid']}, port {found['port']}); unset SPARK_REMOTE in your shell"


def status() -> tuple:
    found = running()
    if not found:
        return False, "no Spark server is running here" + removed_stale()
    up = "up" if answers(found["port"]) else "starting (not answering yet)"
    return True, f"Spark server {up}: pid {found['pid']}, port {found['port']}, log {shown(server_log())}"


def removed_stale() -> str:
    """Remove the state of a server that died (killed, out of memory) without a stop; what to add to
    status's line. A server still starting is left alone: its pid lives while spark-submit execs java."""
    state = saved_state()
    if not state or alive(state["pid"]):
        return ""
    shutil.rmtree(state_dir(), ignore_errors=True)
    return f" (pid {state['pid']}, port {state['port']} has ended: removed its stale {STATE}/)"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("start", "stop", "status", "env"))
    parser.add_argument("--port", type=int, help="start: the port to listen on (default: a free one)")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    if args.port is not None and not 1024 <= args.port <= 65535:
        parser.error(f"--port must be between 1024 and 65535, not {args.port}")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        if args.command == "start":
            print(start(args.port))
            return 0
        if args.command == "stop":
            print(stop())
            return 0
        up, line = status()
        if args.command == "env":
            if not up:
                raise ToolkitError(line)
            line = export_line(running())
        print(line)
        return 0 if up else 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
