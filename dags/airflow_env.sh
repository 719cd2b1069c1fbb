# Set up this shell to run Airflow inside the project (bash or zsh), from the project folder:
#
#     source dags/airflow_env.sh
#     shop_airflow_start          # airflow standalone in the background, log in airflow_home/
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
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN="sqlite:///$AIRFLOW_HOME/airflow.db"
export AIRFLOW__CORE__EXECUTOR=LocalExecutor
export AIRFLOW__CORE__LOAD_EXAMPLES=False
# The DAG runs one task at a time; the default of 32 LocalExecutor workers would only eat memory.
export AIRFLOW__CORE__PARALLELISM=4
export AIRFLOW__API__WORKERS=1
export AIRFLOW__API__HOST=127.0.0.1
export AIRFLOW__API__PORT="${SHOP_AIRFLOW_PORT:-8080}"
# Tasks report to the API server at this address; it must follow the port or every task fails.
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL="http://127.0.0.1:$AIRFLOW__API__PORT/execution/"
# `airflow standalone` starts its scheduler, dag-processor, triggerer and API server by running
# `airflow` from PATH: the project's venv comes first.
export PATH="$SHOP_HOME/.venv/bin:$PATH"

shop_airflow_start() {
    # setsid: its own process group, so shop_airflow_stop can stop all of it at once.
    mkdir -p "$AIRFLOW_HOME"
    setsid airflow standalone > "$AIRFLOW_HOME/standalone.log" 2>&1 < /dev/null &
    echo $! > "$AIRFLOW_HOME/standalone.pid"
    echo "airflow standalone started (pid $(cat "$AIRFLOW_HOME/standalone.pid")), log: airflow_home/standalone.log"
    echo "UI: http://127.0.0.1:$AIRFLOW__API__PORT (user admin, password in airflow_home/simple_auth_manager_passwords.json.generated)"
}

shop_airflow_stop() {
    local pid
    pid="$(cat "$AIRFLOW_HOME/standalone.pid" 2>/dev/null)" || { echo "no airflow_home/standalone.pid"; return 1; }
    kill -TERM -- "-$pid" 2>/dev/null
    for _ in $(seq 30); do kill -0 -- "-$pid" 2>/dev/null || break; sleep 1; done
    kill -KILL -- "-$pid" 2>/dev/null
    rm -f "$AIRFLOW_HOME/standalone.pid"
    echo "airflow standalone stopped"
}
