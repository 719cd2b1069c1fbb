"""Run the shop's Spark Declarative Pipeline (pipelines/) with Delta wired in, or check it with a dry run.

    python run_pipeline.py                                  # a default run: an incremental update
    python run_pipeline.py --full-refresh orders_raw        # read every file again; the view waits for
    python run_pipeline.py --refresh orders_by_day          # ... this, or the next default run
    python run_pipeline.py --full-refresh-all               # reset both tables: the same as a first run
    python run_pipeline.py --dry-run                        # check the graph; reads and writes no data
    python run_pipeline.py --window 2026-09-10 2026-09-12   # load those days' files again, this run only
    python run_pipeline.py --spec my/spark-pipeline.yml     # another spec (a copy, say) instead of pipelines/'s
    python run_pipeline.py --prepare                        # write the run's spec and Spark settings only

--refresh, --full-refresh and --full-refresh-all go to `spark-pipelines run` unchanged, so a bad
combination is refused by spark-pipelines itself, in its own words. Only the selected datasets' flows
run: --full-refresh orders_raw alone leaves orders_by_day as it was (add --refresh orders_by_day).
The spec in git is never edited (pipeline_setup.py writes each run's copy). The tables are
lake/orders_raw and lake/orders_by_day. spark-pipelines' own lines (its flows' progress) are printed
as they come; everything else it prints (its JVM's log, Python tracebacks) goes to
logs/spark-pipelines.log, and a failed run ends with its error in one line. The last line says how long spark-pipelines took, its JVM's start included.
One run (or dry run) at a time on a project folder: a second is refused at once, naming the first
(a lock on lake/_pipeline/run.lock, held until the run and its spark-pipelines CLI end or die). On a
machine, runs of different folders take turns for spark-pipelines' one local port, 15002: a run
that finds it taken prints one line naming the run that has it, and waits (shoptoolkit/engine/pipeline_port.py).
"""
import argparse
import fcntl
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from shoptoolkit.engine import DATASETS, PREPARED, SPEC, START_FILE, local_port, pipeline_home, prepare_run, run_spec
from shoptoolkit.run_args import ToolkitError, add_root, add_verbose, check_range, parse_date, run_main
from shoptoolkit.storage import logs_dir, project_root, shown
from shoptoolkit.till import refuse_other_headers

# spark-pipelines' own lines start with a timestamp: "2026-12-01 10:38:02: Flow ... is RUNNING."
PIPELINE_LINE = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}: ")
# An error's line: `PySparkException: [CONFLICTING_...] ...`, `Error: [UNRESOLVED_COLUMN...] ...`, `SyntaxError: ...`
ERROR_LINE = re.compile(r"\b\w*(Exception|Error): (?P<named>\[[A-Z_.]+\])?.*")
# The CLI's Connect session closed under a failing run (seen once in CI, after the run's real error):
# a consequence of the run's end, never its cause.
AFTERMATH = "[INVALID_HANDLE.SESSION_CLOSED]"
RUN_LOCK = "run.lock"  # in lake/_pipeline/: who runs the pipeline of this folder now


def pipeline_command(args, spec_path) -> list:
    """spark-pipelines run (or dry-run) on the run's spec, the refresh selections passed on unchanged.

    spark-pipelines' CLI runs in this Python, as Airflow's SparkPipelinesOperator runs it in its Connect
    mode: the bin/spark-pipelines script would start a JVM first only to start the same CLI."""
    command = [sys.executable, "-m", "pyspark.pipelines.cli", verb_of(args), "--spec", str(spec_path)]
    for option, values in (("--refresh", args.refresh), ("--full-refresh", args.full_refresh)):
        for value in values:
            command += [option, value]
    return command + (["--full-refresh-all"] if args.full_refresh_all else [])


def verb_of(args) -> str:
    return "dry-run" if args.dry_run else "run"


def main_error(errors: list) -> str:
    """The error to show in one line (of ERROR_LINE's matches): the last that names an error class,
    else the last one; a closed Connect session (AFTERMATH) only when there is nothing else."""
    causes = [match for match in errors if match.group("named") != AFTERMATH] or errors
    named = [match for match in causes if match.group("named")]
    return (named or causes)[-1].group(0).rstrip(";") if causes else ""


@contextmanager
def only_run(command: str):
    """Hold lake/_pipeline/run.lock (flock) for this run, noting the run in it; a ToolkitError naming the
    run that holds it, at once, if another has it. The OS frees the lock when every process holding it
    has ended or died: yields its descriptor, for the spark-pipelines CLI to hold it too."""
    path = pipeline_home() / RUN_LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.seek(0)
            running = lock.read().strip() or "a run that has not yet said which"
            raise ToolkitError(f"run_pipeline.py is already running on this folder ({running}; "
                               f"{shown(path)}): wait for it to end") from None
        lock.truncate(0)
        lock.write(f"pid {os.getpid()}: {command}\n")
        lock.flush()
        yield lock.fileno()


def run_logged(command: list, verb: str, env: dict, verbose: bool, locks: tuple) -> int:
    """Run command in the project root, the run's locks passed on (the folder's, the port's). spark-pipelines sends its Python's and
    its JVM's output alike to stdout: its own timestamped lines are shown, every line goes to the log
    (each on the terminal too with --verbose). A failure is a ToolkitError naming the run's main error."""
    log = logs_dir() / "spark-pipelines.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    began, errors = time.monotonic(), []
    with open(log, "a") as kept, subprocess.Popen(command, env=env, cwd=project_root(), text=True, errors="replace",
                                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                  pass_fds=locks) as child:
        try:
            for line in child.stdout:
                kept.write(line)
                if verbose or PIPELINE_LINE.match(line):
                    print(line, end="", flush=True)
                errors += [match for match in [ERROR_LINE.search(line.rstrip())] if match]
        except BaseException:  # Ctrl-C, or SIGTERM (stopped_by_signal): end the CLI too; its JVM follows
            end_child(child)
            raise
    print(f"spark-pipelines {verb}: exit {child.returncode} in {time.monotonic() - began:.1f} s")
    if child.returncode:
        why = main_error(errors)
        raise ToolkitError(f"spark-pipelines {verb} failed" + (f": {why}" if why else "")
                           + f"; see {shown(log)}")
    return 0


def end_child(child, wait: float = 30.0) -> None:
    """SIGTERM to spark-pipelines' CLI, SIGKILL if it is still there after wait seconds. Its JVM
    exits on its own once the CLI's end closes the JVM's stdin."""
    child.terminate()
    try:
        child.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        child.kill()


def stopped_by_signal(signum, frame):
    """SIGTERM (timeout, a scheduler stopping the run) ends the run as Ctrl-C does, through its
    `finally`: the run's spec copy is removed and spark-pipelines' CLI is ended."""
    print(f"stopped by {signal.Signals(signum).name}: spark-pipelines ended", file=sys.stderr, flush=True)
    sys.exit(128 + signum)


def dataset_list(text: str) -> str:
    """A --refresh/--full-refresh value (comma-separated names), checked, then passed on as it is:
    spark-pipelines itself quietly runs nothing for a name the pipeline does not have."""
    unknown = [name.strip() for name in text.split(",") if name.strip() not in DATASETS]
    if unknown:
        raise argparse.ArgumentTypeError(f"{', '.join(unknown)}: not a dataset of the pipeline "
                                         f"({', '.join(DATASETS)})")
    return text


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for option, what in (("--refresh", "update"), ("--full-refresh", "reset and recompute")):
        parser.add_argument(option, type=dataset_list, action="append", default=[], metavar="TABLES",
                            help=f"datasets to {what} (comma-separated), passed to spark-pipelines")
    parser.add_argument("--full-refresh-all", action="store_true", help="reset and recompute every dataset")
    parser.add_argument("--dry-run", action="store_true", help="spark-pipelines dry-run: check the graph only")
    parser.add_argument("--window", nargs=2, type=parse_date, metavar=("FIRST", "LAST"),
                        help="load the files of the days FIRST..LAST again, for this run only")
    parser.add_argument("--spec", type=Path, default=SPEC,
                        help="the pipeline's spec (default: the toolkit's pipelines/spark-pipeline.yml)")
    parser.add_argument("--prepare", action="store_true",
                        help=f"write pipelines/{PREPARED}, lake/_pipeline/conf/ and {START_FILE}, run nothing")
    add_verbose(parser)
    add_root(parser)
    args = parser.parse_args(argv)
    if args.dry_run and (args.refresh or args.full_refresh or args.full_refresh_all):
        parser.error("--dry-run takes no refresh selection: a dry run reads and writes no data")
    if args.window:
        check_range(parser, *args.window, allow_long=False)
    return args


def main(argv=None) -> int:
    args = parse_args(argv)  # a bad date or dataset name is a usage error before Spark starts

    def body():
        if not args.dry_run:  # the flows read every file with the till's columns: another header fails them
            refuse_other_headers(run_spec(args.spec.resolve())["configuration"]["spark.shop.landing"])
        if args.prepare:
            path, _ = prepare_run(args.spec.resolve(), args.window, PREPARED)
            print(f"prepared {shown(path)}, {shown(pipeline_home() / 'conf')} (SPARK_CONF_DIR) and "
                  f"{shown(pipeline_home() / START_FILE)}; nothing run")
            return 0
        command = shlex.join(["run_pipeline.py", *(sys.argv[1:] if argv is None else argv)])
        with only_run(command) as lock:
            path, env = prepare_run(args.spec.resolve(), args.window)
            try:
                with local_port(f"{project_root()}: {command}") as port:
                    return run_logged(pipeline_command(args, path), verb_of(args), env, args.verbose, (lock, port))
            finally:
                path.unlink(missing_ok=True)
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    signal.signal(signal.SIGTERM, stopped_by_signal)  # here only: a notebook's kernel keeps its own
    raise SystemExit(main())
