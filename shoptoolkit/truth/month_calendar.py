"""A month's day states drawn as a wall calendar: weeks as rows, Monday first, one cell per day.

    September 2026: 29 ok, 1 changed
    Mon        Tue        Wed        Thu        Fri        Sat        Sun
                1 ok       2 ok       3 ok       4 ok       5 ok       6 ok
    ...
    14 ok      15 changed 16 ok      17 ok      18 ok      19 ok      20 ok

Plain text that reads without colour; on a terminal the states are coloured too.
"""
import calendar
import os

from shoptoolkit.truth.verdict import STATES

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
# ANSI colours (SGR codes) for a terminal: green, yellow, red, red, magenta, dim.
COLOURS = {"ok": "32", "changed": "33", "mismatch": "31", "missing": "31", "no file": "35", "future": "2"}


def wants_colour(stream, environ=None) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    environ = os.environ if environ is None else environ
    return stream.isatty() and not environ.get("NO_COLOR")


def state_counts(states) -> str:
    counts = {name: sum(found.state == name for found in states) for name in STATES}
    return ", ".join(f"{count} {name}" for name, count in counts.items() if count)


def draw_calendar(month, states, colour: bool = False) -> list:
    """The lines of month's calendar with each day's state; month is the date of its first day."""
    state = {found.day.day: found.state for found in states}
    word = max([3] + [len(name) for name in state.values()])
    width = 3 + word  # "15 changed": the day's number in two places, a space, the state
    lines = [f"{calendar.month_name[month.month]} {month.year}: {state_counts(states)}",
             " ".join(f"{name:<{width}}" for name in WEEKDAYS).rstrip()]
    for week in calendar.Calendar(firstweekday=calendar.MONDAY).monthdayscalendar(month.year, month.month):
        cells = [day_cell(number, state.get(number, "?"), word, colour) if number else " " * width
                 for number in week]
        lines.append(" ".join(cells).rstrip())
    return lines


def day_cell(number: int, name: str, word: int, colour: bool) -> str:
    shown = f"\033[{COLOURS[name]}m{name}\033[0m" if colour and name in COLOURS else name
    return f"{number:>2} {shown}" + " " * (word - len(name))
