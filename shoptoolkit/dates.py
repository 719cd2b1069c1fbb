"""The run-date rule, once: a run on date D loads day D-1. Dates travel as ISO strings or datetime.date.

    from shoptoolkit.dates import as_date, day_loaded_by, parse_date
    parser.add_argument("run_date", type=parse_date)     # a bad date is a usage error before Spark starts
    day_loaded_by("2026-09-16")                          # datetime.date(2026, 9, 15)
"""
import argparse
import datetime as dt
import re

from shoptoolkit.errors import ToolkitError


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
