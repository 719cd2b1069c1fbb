# Set up this shell to run Airflow inside the project (bash or zsh), from the project folder:
#
#     source dags/airflow_env.sh
#     shop_airflow_start          # Airflow's services in the background, logs in airflow_home/
#     airflow dags list-runs shop_daily
#     shop_airflow_stop           # stops every Airflow process it started
#
# Airflow's state (SQLite database, logs, generated admin password) goes to airflow_home/, which git
# ignores; the DAGs come from dags/. Nothing listens beyond 127.0.0.1. See docs/airflow.md.

_shop_dags="$(cd "$(dirname "${BASH_SOURCE[0]:-$0}")" && pwd)"
export SHOP_HOME="$(dirname "$_shop_dags")"
unset _shop_dags

export AIRFLOW_HOME="$SHOP_HOME/airflow_home"
export AIRFLOW__CORE__DAGS_FOLDER="$SHOP_HOME/dags"
# SQLite admits one writer at a time; with Spark on both cores a write can take longer than the
# default 5 s wait, so writers wait up to 60 s.
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="sqlite:///$AIRFLOW_HOME/airflow.db?timeout=60"
export AIRFLOW__CORE__EXECUTOR=LocalExecutor
export AIRFLOW__CORE__LOAD_EXAMPLES=False
# The DAG runs one task at a time; the default of 32 LocalExecutor workers would only eat memory.
export AIRFLOW__CORE__PARALLELISM=4
export AIRFLOW__API__WORKERS=1
export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT="${SHOP_AIRFLOW_PORT:-8080}"
# Tasks report to the API server at this address; it must follow the port or every task fails.
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL="http://127.0.0.1:$AIRFLOW__API__PORT/execution/"
# dags/sdp_nightly.py's SparkPipelinesOperator in its Spark Connect mode; the DAG sets SPARK_REMOTE=local,
# so the pipeline starts a Spark of its own and this address is never dialled.
export AIRFLOW_CONN_SHOP_SDP='{"conn_type": "spark_connect", "host": "localhost"}'
# `airflow standalone` starts its services by running `airflow` from PATH: the project's venv first.
export PATH="$SHOP_HOME/.venv/bin:$PATH"
# Every `airflow dags ...` command would print this warning first, in the middle of its output.
export PYTHONWARNINGS="ignore:Could not import graphviz"

# What `airflow standalone` runs, started here so that nothing listens beyond 127.0.0.1: standalone
# also opens two log servers on all interfaces (8793, 8794; no setting binds them to loopback) and a
# triggerer, which this DAG (no deferrable tasks) never needs. Task logs are read from local files.
shop_airflow_start() {
    mkdir -p "$AIRFLOW_HOME"
    # setsid: one new process group for all of it, so shop_airflow_stop can stop it at once.
    # The API server answers first: a task the scheduler starts before it can report to it fails
    # at once ("finished with state failed, but the task instance's state attribute is queued").
    setsid bash -c '
        airflow db migrate > "$AIRFLOW_HOME/db-migrate.log" 2>&1 || exit 1
        airflow api-server > "$AIRFLOW_HOME/api-server.log" 2>&1 &
        until (exec 3<> "/dev/tcp/127.0.0.1/$AIRFLOW__API__PORT") 2> /dev/null; do sleep 1; done
        airflow scheduler --skip-serve-logs > "$AIRFLOW_HOME/scheduler.log" 2>&1 &
        airflow dag-processor > "$AIRFLOW_HOME/dag-processor.log" 2>&1 &
        wait' < /dev/null > /dev/null 2>&1 &
    echo $! > "$AIRFLOW_HOME/airflow.pid"
    shop_airflow_wait || return 1
    echo "Airflow is up: scheduler, dag-processor, API server on http://127.0.0.1:$AIRFLOW__API__PORT"
    echo "UI login: admin, password in airflow_home/simple_auth_manager_passwords.json.generated"
}

# Waits (5 minutes at most) until the API server reports a healthy scheduler and dag-processor.
shop_airflow_wait() {
    python - <<'PY'
import json, os, sys, time, urllib.request
url = f"http://127.0.0.1:{os.environ['AIRFLOW__API__PORT']}/api/v2/monitor/health"
deadline = time.monotonic() + 300
while time.monotonic() < deadline:
    try:
        health = json.load(urllib.request.urlopen(url, timeout=2))
        if all(health.get(part, {}).get("status") == "healthy" for part in ("scheduler", "dag_processor")):
            sys.exit(0)
    except OSError:
        pass
    time.sleep(1)
sys.exit(f"Airflow did not become healthy at {url}: see airflow_home/*.log")
PY
}

# `airflow backfill create --dag-id shop_daily ARGS` (or `airflow_backfill_create --dag-id sdp_nightly ARGS`
# for another DAG), made safe on SQLite: the DAG paused while the backfill is made, a try that met
# SQLite's lock made again, the DAG unpaused if it was on (dags/backfill_create.py says why). Airflow's
# commands run as functions in one Python process, so the steps pay one start of Airflow, not four.
airflow_backfill_create() {
    python "$SHOP_HOME/dags/backfill_create.py" "$@"
}

shop_airflow_stop() {
    local pid
    pid="$(cat "$AIRFLOW_HOME/airflow.pid" 2>/dev/null)" \
        || { echo "no airflow_home/airflow.pid: nothing started by shop_airflow_start"; return 1; }
    kill -TERM -- "-$pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$pid" 2>/dev/null
    rm -f "$AIRFLOW_HOME/airflow.pid"
    echo "Airflow stopped"
}
