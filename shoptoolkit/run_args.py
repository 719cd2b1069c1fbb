"""What every script shares: its options (--root, --verbose, --on-new-column, a range of run dates) and its ending, one
line and exit 1 on any error (the run-date rule itself is dates.py's).

    from shoptoolkit.run_args import add_root, add_verbose, run_main
    add_root(parser)                        # --root DIR, SHOP_ROOT's option
    add_new_column(parser)                  # --on-new-column fail|add|rescue, --column-types DDL
    return run_main(body, args.verbose)     # body's error as `error: ...` on stderr, exit 1
"""
import argparse
import os
import sys

from shoptoolkit.dates import as_date, day_loaded_by, parse_date, parse_month, run_dates
from shoptoolkit.engine.spark_errors import one_line
from shoptoolkit.errors import ToolkitError, UsageError
from shoptoolkit.storage.location import is_local
from shoptoolkit.storage.project_paths import ROOT_ENV, local_folder, set_root
from shoptoolkit.table_schema import RESCUED
from shoptoolkit.till.new_columns import MODE_ENV, MODES, TYPES_ENV, parse_types, set_new_columns

MAX_RUNS = 366


def parse_days_per_commit(text: str) -> int:
    """backfill.py's --days-per-commit for argparse: a whole number of days, 0 or `all` for the whole range."""
    if text == "all":
        return 0
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days (or all)")
    return int(text)


def check_range(parser, first, last, allow_long: bool) -> None:
    """FIRST after LAST, or more than a year of runs without --allow-long, is a usage error."""
    if first > last:
        parser.error(f"FIRST {first} is after LAST {last}")
    runs = (last - first).days + 1
    if runs > MAX_RUNS and not allow_long:
        parser.error(f"{runs} runs is more than a year ({MAX_RUNS}); add --allow-long to confirm")


def add_verbose(parser) -> None:
    parser.add_argument("--verbose", action="store_true",
                        help="show Spark's full error trace (or set SHOP_VERBOSE=1)")


class RootOption(argparse.Action):
    """--root DIR sets the project root as it is parsed, so every path the script makes follows it. A
    folder must exist; an object store's prefix need not (a store has no folders), but its bucket must answer."""

    def __call__(self, parser, namespace, value, option_string=None):
        try:
            folder = local_folder(value)
        except ToolkitError as error:
            parser.error(f"argument --root: {error}")
        if is_local(folder) and not folder.is_dir():
            parser.error(f"argument --root: {value!r} is not a folder")
        setattr(namespace, self.dest, set_root(value))


def add_root(parser) -> None:
    parser.add_argument("--root", metavar="DIR", action=RootOption,
                        help=f"the folder holding landing/, lake/ and logs/, a path or a file:// URI, or "
                             f"s3a://BUCKET/PREFIX (or gs://; logs/ then stays in the current folder) "
                             f"(or set {ROOT_ENV}; default: the current folder)")


class NewColumnOption(argparse.Action):
    """--on-new-column and --column-types set the process's setting as they are parsed (SHOP_ON_NEW_COLUMN,
    SHOP_COLUMN_TYPES), so every load of the run follows it, and every process it starts."""

    def __call__(self, parser, namespace, value, option_string=None):
        if option_string == "--column-types":
            try:
                parse_types(value)
            except ValueError as error:
                parser.error(f"argument --column-types: {error}")
        set_new_columns(**{"mode" if option_string == "--on-new-column" else "types": value})
        setattr(namespace, self.dest, value)


def add_new_column(parser) -> None:
    parser.add_argument("--on-new-column", choices=MODES, action=NewColumnOption,
                        help=f"what a column of the file that the table lacks does: fail (the default), add it to "
                             f"the table, or rescue it into {RESCUED} as JSON (or set {MODE_ENV})")
    parser.add_argument("--column-types", metavar="DDL", action=NewColumnOption,
                        help=f"new columns' types, e.g. \"discount DECIMAL(10,2), opened DATE\"; an undeclared one is "
                             f"a STRING (or set {TYPES_ENV})")


def run_main(main_body, verbose: bool) -> int:
    """Run a script's work: one line and exit 1 on any error (2 on a UsageError), the full trace with --verbose."""
    verbose = verbose or bool(os.environ.get("SHOP_VERBOSE"))
    try:
        return main_body()
    except Exception as error:
        if verbose:
            raise
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2 if isinstance(error, UsageError) else 1
