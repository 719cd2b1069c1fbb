"""A day's state and its words, in one place: every checker (check_day, check_month, a backfill's check,
--reprocess, check_pipeline's view, the model check's oracle) says `ok`, `PROBLEM`, `changed` or
`missing` for a day through these functions, from facts it has already taken.

    day_verdict(day, 4, 4, {})                   # (True, "ok 2026-09-15: 4 rows for the file's 4 orders, 0 missing")
    state_of(day, matches, rows, sha_now, loaded)   # 'ok', 'changed', 'mismatch', 'missing' or 'no file'

A day is, decided in this order:
  future    its run date is after `today` (only when a today is given)
  no file   no landing file, whether the table has rows for it or not
  missing   a file but no rows
  ok        the rows are the file's orders, ids and values (check_day's verdict)
  changed   the rows are still those the day's latest load wrote, from a file whose sha256 was another
  mismatch  any other difference (or the file does not pass the checks)
"""
import datetime as dt

from shoptoolkit.dates import as_date, day_loaded_by

STATES = ("ok", "changed", "mismatch", "missing", "no file", "future")


def listed(ids) -> str:
    """The first five ids, sorted: `2001, 2002, ...`."""
    ids = sorted(ids)
    return ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")


def day_verdict(day, rows: int, orders: int, kinds: dict, detail: str = ""):
    """(ok, message) from the counts: kinds maps a kind to (how many, the first ids listed); detail: what
    differs in the first differing order."""
    head = f"{rows} rows for the file's {orders} orders"
    found = [f"{count} {kind} ({ids})" for kind, (count, ids) in kinds.items() if count]
    if not found:
        return True, f"ok {day}: {head}, 0 missing"
    return False, f"PROBLEM {day}: " + ", ".join([head] + found) + (f"; {detail}" if detail else "")


def noted(verdict: tuple, absent) -> tuple:
    """A verdict (ok, message, ...) whose ok line says which of the table's new columns (absent) the day's
    file lacks: its rows hold null there (docs/new_columns.md)."""
    if not verdict[0] or not absent:
        return verdict
    return (True, f"{verdict[1]}; no {', '.join(absent)} in the file (null in the table)", *verdict[2:])


def without_file(day, why: str, rows: int):
    """(False, message) for a day whose file has no ids to compare: none, or refused (why)."""
    return False, f"PROBLEM {day}: {why}, {rows} rows"


def state_of(day: dt.date, matches: bool, rows: int, sha_now: str, loaded: dict, today=None) -> str:
    """The day's state (the module's docstring says each) from its verdict and its facts; loaded: the
    lineage of the load whose rows the day still holds, {} when none does."""
    if today is not None and day_loaded_by(as_date(today)) < day:
        return "future"
    if not sha_now:
        return "no file"
    if rows == 0:
        return "missing"
    if matches:
        return "ok"
    return "changed" if loaded and loaded["sha256"] != sha_now else "mismatch"


def problem_line(found) -> str:
    """A DayState's PROBLEM line: its comparison's, or for a changed day, which load its rows come from and
    what to run."""
    if found.state != "changed":
        return found.message
    return (f"PROBLEM {found.day}: file changed since run {found.loaded.get('run_date')} loaded it "
            f"(sha256 {found.loaded['sha256'][:12]}, now {found.file_sha256[:12]}); "
            f"reload it with python load_day.py {found.day + dt.timedelta(days=1)}")


def month_verdict(label: str, states) -> tuple:
    """(ok, PROBLEM lines and the closing line) for a month's day states. A `future` day is no problem:
    its run has not come yet, so a month in progress passes when every day up to the last loadable one
    matches."""
    checked = [found for found in states if found.state != "future"]
    lines = [problem_line(found) for found in checked if not found.matches or found.state == "changed"]
    bad = len(lines)
    lines.append(closing_line(label, checked, len(states) - len(checked), bad))
    return bad == 0, lines


def closing_line(label: str, checked: list, future: int, bad: int) -> str:
    """`ok 2026-09: all 30 days match their files, 130 orders`, for a month in progress `ok 2026-12: the 1
    day up to 2026-12-01 matches its file, 3 orders (30 future)`, or its PROBLEM line."""
    upto = f" up to {checked[-1].day}" if future and checked else ""
    after = f" ({future} future)" if future else ""
    orders = sum(found.rows for found in checked)
    if bad:
        return f"PROBLEM {label}: {bad} of {days(len(checked))}{upto} {'does' if len(checked) == 1 else 'do'} not match{after}"
    if not checked:
        return f"ok {label}: no day to check yet, 0 orders{after}"
    if len(checked) == 1:
        return f"ok {label}: the 1 day{upto} matches its file, {orders} orders{after}"
    return f"ok {label}: all {days(len(checked))}{upto} match their files, {orders} orders{after}"


def days(count: int) -> str:
    return f"{count} day" if count == 1 else f"{count} days"


def totals_verdict(day, in_file, why: str, in_view, view: str, shown):
    """(ok, message) for a day of the pipeline's per-day view: its (orders, amount) against the file's;
    in_file None: the file has none (why); shown: how totals are written."""
    if in_file is None:
        return False, f"PROBLEM {day}: {why}, {view} has {shown(in_view)}"
    if in_file == in_view:
        return True, f"ok {day}: {shown(in_view)}"
    return False, f"PROBLEM {day}: {view} has {shown(in_view)}, the file has {shown(in_file)}"


def view_month_verdict(label: str, results: list, view: str, orders: int, amount) -> tuple:
    """(ok, PROBLEM lines and the closing line) for the pipeline's view from each day's (ok, message)."""
    lines = [message for ok, message in results if not ok]
    if lines:
        return False, lines + [f"PROBLEM {label}: {len(lines)} of {len(results)} days do not match"]
    return True, [f"ok {label}: {view} matches the files on all {len(results)} days, {orders} orders, "
                  f"{amount:.2f} in all"]
