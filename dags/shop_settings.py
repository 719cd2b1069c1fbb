"""The settings shop_daily.py and sdp_nightly.py share, read from the environment when a DAG file is
parsed: where the project is, which Python runs its scripts, how often a task is tried again.

    SHOP_HOME                  project folder (default: the folder above dags/)
    SHOP_PYTHON                Python that runs the scripts (default: SHOP_HOME/.venv/bin/python if
                               it exists, else the Python running Airflow)
    SHOP_RETRIES               retries per task (default 2)
    SHOP_RETRY_DELAY_SECONDS   wait before a retry (default 300); tests set both low

It defines no DAG, so the dag-processor finds nothing to schedule in it. A DAG file puts its own folder
on sys.path before it imports this one: a dag-processor has the dags folder there, a DagBag made
elsewhere (a test, another dags_folder) may not. (A DAG file cannot import another DAG file's helpers:
that would define the other DAG a second time, and Airflow then ignores one of them.)
"""
import datetime as dt
import os
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
