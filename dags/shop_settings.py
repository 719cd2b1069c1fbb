"""The settings shop_daily.py, shop_backfill.py, shop_upkeep.py and sdp_nightly.py share, read from the
environment when a DAG file is parsed: where the project is, which Python runs its scripts, how often a task is tried
again, and the shell line that runs a script (on a warm Spark Connect server when one is set).

    SHOP_HOME                  project folder (default: the folder above dags/)
    SHOP_PYTHON                Python that runs the scripts (default: SHOP_HOME/.venv/bin/python if
                               it exists, else the Python running Airflow)
    SHOP_RETRIES               retries per task (default 2)
    SHOP_RETRY_DELAY_SECONDS   wait before a retry (default 300); tests set both low
    SHOP_SPARK_REMOTE          a warm Spark Connect server for the scripts (see script_command)

It defines no DAG, so the dag-processor finds nothing to schedule in it. A DAG file puts its own folder
on sys.path before it imports this one: a dag-processor has the dags folder there, a DagBag made
elsewhere (a test, another dags_folder) may not. (A DAG file cannot import another DAG file's helpers:
that would define the other DAG a second time, and Airflow then ignores one of them.)
"""
import datetime as dt
import os
import shlex
import sys
from pathlib import Path

DAGS_FOLDER = Path(__file__).resolve().parent


def project_home() -> Path:
    return Path(os.environ.get("SHOP_HOME") or DAGS_FOLDER.parent)


def project_python(home: Path) -> str:
    """The venv that has pyspark and delta-spark; Airflow's own Python when they share one."""
    if os.environ.get("SHOP_PYTHON"):
        return os.environ["SHOP_PYTHON"]
    venv = home / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def default_args() -> dict:
    return {
        "retries": int(os.environ.get("SHOP_RETRIES", "2")),
        "retry_delay": dt.timedelta(seconds=int(os.environ.get("SHOP_RETRY_DELAY_SECONDS", "300"))),
    }


def script_command(python: str, script: str, *args: str) -> str:
    """The shell line a task runs: python quoted (a project folder may contain spaces), args as given
    (a template such as {{ ds }}, or values the caller quoted). With SHOP_SPARK_REMOTE set, bash passes
    its value on as SPARK_REMOTE when the task runs: the address and its token stay out of the line."""
    warm = 'SPARK_REMOTE="$SHOP_SPARK_REMOTE" ' if os.environ.get("SHOP_SPARK_REMOTE") else ""
    return warm + " ".join([shlex.quote(python), script, *args])
