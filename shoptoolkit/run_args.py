"""The run-date rules and the options every script shares: a run on date D loads day D-1.

    from shoptoolkit.run_args import add_root, add_verbose, parse_date
    parser.add_argument("run_date", type=parse_date)     # a bad date is a usage error before Spark starts

Dates travel as ISO strings or datetime.date; as_date turns either into a date.
"""
import argparse
import datetime as dt
import re

from shoptoolkit.errors import ToolkitError
from shoptoolkit.project_paths import ROOT_ENV, local_folder, set_root
from shoptoolkit.storage import is_local

MAX_RUNS = 366


def parse_date(text: str) -> dt.date:
    """An ISO date (YYYY-MM-DD) for argparse; anything else is a usage error."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text or ""):
        raise argparse.ArgumentTypeError(f"{text!r} is not a date in the form YYYY-MM-DD")
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a calendar date") from None


def parse_month(text: str) -> dt.date:
    """A month (YYYY-MM) for argparse, as the date of its first day."""
    if not re.fullmatch(r"\d{4}-\d{2}", text or "") or not 1 <= int(text[5:]) <= 12:
        raise argparse.ArgumentTypeError(f"{text!r} is not a month in the form YYYY-MM")
    return dt.date.fromisoformat(f"{text}-01")


def parse_days_per_commit(text: str) -> int:
    """backfill.py's --days-per-commit for argparse: a whole number of days, 0 or `all` for the whole range."""
    if text == "all":
        return 0
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of days (or all)")
    return int(text)


def as_date(value) -> dt.date:
    """A date from a date or an ISO string, for functions called from a notebook or a test."""
    if isinstance(value, dt.date):
        return value
    try:
        return parse_date(str(value))
    except argparse.ArgumentTypeError as error:
        raise ToolkitError(str(error)) from None


def day_loaded_by(run_date) -> dt.date:
    """A run on date D loads day D-1."""
    return as_date(run_date) - dt.timedelta(days=1)


def run_dates(first, last) -> list:
    first, last = as_date(first), as_date(last)
    return [first + dt.timedelta(days=i) for i in range((last - first).days + 1)]


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
                             f"s3a://BUCKET/PREFIX (gs://, abfss://; logs/ then stays in the current folder) "
                             f"(or set {ROOT_ENV}; default: the current folder)")
