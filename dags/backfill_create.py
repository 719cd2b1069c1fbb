"""`airflow backfill create` made safe on SQLite, in one Python process: what airflow_backfill_create
(dags/airflow_env.sh) runs, with Airflow's environment set by that file (docs/airflow.md).

    python dags/backfill_create.py --from-date 2026-09-02 --to-date 2026-10-02 --max-active-runs 1
    python dags/backfill_create.py --dag-id sdp_nightly ARGS         # another DAG than shop_daily

The command makes one commit per run, and one of them can meet another process's write and fail at once
with "database is locked", whatever the wait; Airflow then deletes the half-made backfill, and a
scheduler already holding one of its runs crashed on that (ObjectDeletedError). So the DAG is paused
while the backfill is made (the scheduler leaves a paused DAG's runs alone), a try that met the lock is
made again (5 tries, 5 s apart), and the DAG is unpaused again if it was on. A dry run changes nothing.
Airflow's own commands (dags pause, backfill create, dags unpause) run here as functions: one start
of Python and one import of Airflow for all of them. Exit 0 when made, 75 when SQLite stayed busy,
1 on any other error, its last lines printed.
"""
import os
import sys
import tempfile
import time
import traceback

TRIES, WAIT_SECONDS = 5, 5
BUSY = 75  # SQLite was busy: the try can be made again
NOISE = ("creating dag run", "Created backfill Dag run")  # a line per run, from the command itself


def airflow(*argv) -> tuple:
    """(True when it ended well, everything it printed) of `airflow ARGV` run in this process."""
    from airflow.cli import cli_parser
    args = cli_parser.get_parser().parse_args(list(argv))
    with tempfile.TemporaryFile("w+b") as caught:
        sys.stdout.flush(), sys.stderr.flush()
        saved = [os.dup(fd) for fd in (1, 2)]
        for fd in (1, 2):  # Airflow's log handlers write to the streams they were given: catch the fds
            os.dup2(caught.fileno(), fd)
        try:
            args.func(args)
            ended_well = True
        except SystemExit as stop:
            ended_well = stop.code in (None, 0)
            if not ended_well and stop.code is not None and not isinstance(stop.code, int):
                print(stop.code, file=sys.stderr)
        except Exception:
            ended_well = False
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            for fd, copy in zip((1, 2), saved):
                os.dup2(copy, fd)
                os.close(copy)
        caught.seek(0)
        return ended_well, caught.read().decode(errors="replace")


def paused(dag: str):
    """Whether the DAG is paused now; None when Airflow does not know it."""
    from airflow.models.dag import DagModel
    from airflow.utils.session import create_session
    with create_session() as session:
        model = session.get(DagModel, dag)
        return None if model is None else model.is_paused


def one_try(dag: str, args: list) -> int:
    """One `airflow backfill create`: 0 when made (its lines printed), BUSY on SQLite's lock, else 1."""
    made, printed = airflow("backfill", "create", "--dag-id", dag, *args)
    if made:
        kept = [line for line in printed.splitlines() if not any(noise in line for noise in NOISE)]
        print("\n".join(kept) if any(kept) else f"backfill created: follow it with airflow dags list-runs {dag}")
        return 0
    if "database is locked" in printed:
        return BUSY
    print("\n".join(printed.rstrip("\n").splitlines()[-5:]))
    return 1


def main(argv: list) -> int:
    from airflow.configuration import write_default_airflow_configuration_if_needed
    write_default_airflow_configuration_if_needed()  # as the airflow command does before any command
    dag = "shop_daily"
    if argv[:1] == ["--dag-id"] and len(argv) > 1:
        dag, argv = argv[1], argv[2:]
    if "--dry-run" in argv:
        return one_try(dag, argv)
    was_paused = paused(dag)
    airflow("dags", "pause", dag)
    status = BUSY
    for number in range(1, TRIES + 1):
        status = one_try(dag, argv)
        if status != BUSY:
            break
        print(f"SQLite was busy (database is locked), try {number} of {TRIES}; again in {WAIT_SECONDS} s", flush=True)
        time.sleep(WAIT_SECONDS)
    if was_paused is False:
        airflow("dags", "unpause", dag)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
