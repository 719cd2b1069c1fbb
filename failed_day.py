"""Say which day a failed run leaves behind, and what its file looks like, before the run is repaired.

    python failed_day.py 2026-09-21    # run 2026-09-21 failed: what about day 2026-09-20?

The Lakeflow job's last task (databricks.yml), run only when load_day or check_day failed
(run_if: AT_LEAST_ONE_FAILED). It reads the day's file only, with no Spark, so it still speaks when
Spark is what failed. It prints one line and exits 1: the job's run stays failed, and a Repair run
reruns its failed tasks once the day's file is fixed.
"""
import argparse

from shoptoolkit.run_args import add_root, add_verbose, day_loaded_by, parse_date, run_main
from shoptoolkit.storage import day_file, shown
from shoptoolkit.truth import checked_file


def failed_day_line(run_date) -> str:
    """The line naming the day a failed run was to load, and what its file says."""
    day = day_loaded_by(run_date)
    found, why = checked_file(day)
    if found:
        state = (f"{shown(found.path)} reads fine ({found.count} orders): the table or Spark failed, "
                 f"see the load_day and check_day output")
    elif why == "no file":
        state = f"no file {shown(day_file(day))}"
    else:
        state = why
    return f"FAILED run {run_date}: day {day} is not loaded and checked; {state}"


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_date", type=parse_date, help="the failed run's date D (YYYY-MM-DD); day D-1")
    add_verbose(parser)
    add_root(parser)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)

    def body():
        print(failed_day_line(args.run_date))
        return 1
    return run_main(body, args.verbose)


if __name__ == "__main__" and "__file__" in globals():  # a terminal run; pasted into a cell, it only defines
    raise SystemExit(main())
