"""Benchmark: one shop_daily DAG run under a real Airflow scheduler, its tasks on their own Spark and
then on a warm Spark Connect server.

    python bench/bench_dag.py        # about 5 minutes on 2 cores; needs make airflow-setup

Works in a temporary copy of the project with its own airflow_home/ on a free port of 127.0.0.1,
started and stopped with dags/airflow_env.sh, as the end-to-end test does (its Shop class). After
make_days, turning the DAG on starts its scheduled run for the latest 02:00 (no file for that day: it
fails, and is not timed). Then one run is triggered for 2026-09-16 with each task starting its own
Spark; Airflow is started again with SHOP_SPARK_REMOTE pointing at a warm server (spark_server.py),
and one run is triggered for 2026-09-17. Prints each run's time from its start to its end, and each
task's. It waits by reading Airflow's database, so no `airflow` command runs beside a timed run.
"""
import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "support"), str(ROOT / "tests" / "end_to_end")]

from test_airflow_e2e import DONE, Shop, copy_project, runs, seconds, wait_for  # noqa: E402


def triggered_run(shop: Shop, run_date: str) -> dict:
    """Trigger a run for run_date at 02:00 UTC and wait until it has ended."""
    run_id = f"bench__{run_date}"
    shop.sh("airflow", "dags", "trigger", "shop_daily", "--logical-date", f"{run_date}T02:00:00+00:00",
            "--run-id", run_id)
    wait_for(lambda: shop.run_states("shop_daily", run_id)[run_date][0] in DONE, f"run {run_id} to end", 900, every=1)
    return next(run for run in runs(shop).values() if run["run_id"] == run_id)


def run_line(shop: Shop, way: str, run: dict) -> str:
    tasks = shop.airflow_json("tasks", "states-for-dag-run", "shop_daily", run["run_id"])
    times = ", ".join(f"{task['task_id']} {task['state']} {seconds(task):.1f} s" for task in tasks)
    return f"one DAG run, {way}: {run['state']} in {seconds(run):.1f} s ({times})"


def both_ways(shop: Shop) -> list:
    shop.sh("python", "make_days.py")
    shop.sh("shop_airflow_start")
    wait_for(lambda: "shop_daily" in shop.stored_dags(), "the dag-processor to store shop_daily", seconds=120, every=1)
    shop.sh("airflow", "dags", "unpause", "shop_daily")
    wait_for(lambda: any(state in DONE for state, _ in shop.run_states("shop_daily").values()), "the scheduled run",
             600, every=1)
    lines = [run_line(shop, "each task on its own Spark", triggered_run(shop, "2026-09-16"))]
    shop.stop()
    shop.start()  # a warm server first, then Airflow with SHOP_SPARK_REMOTE set to it
    lines.append(run_line(shop, "each task on the warm server", triggered_run(shop, "2026-09-17")))
    return lines


def main(argv=None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)  # no options: --help only
    print(f"load average before: {os.getloadavg()[0]:.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        shop = Shop(copy_project(Path(folder) / "shop"))
        try:
            lines = both_ways(shop)
        finally:
            shop.stop()
    print("\n".join(lines))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
