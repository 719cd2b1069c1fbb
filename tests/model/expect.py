"""What the readers must say, from the model alone: check_day's verdict, every day's state for
check_month, the runs --reprocess and --dry-run choose (docs/reprocess.md), a backfill's closing line.
"""
import calendar
import datetime as dt
from collections import Counter

from model.table_model import RESCUED, TABLE_MISSING, row_values
from model.till import check_file, columns_of, file_sha256, rows_digest

VALUES = ("customer_id", "amount", "ordered_at")  # an order's values, in the order check_day names them

# --reprocess: the states each choice runs (docs/reprocess.md).
CHOOSES = {"failed": ("mismatch", "missing", "no file"), "missing": ("missing",),
           "changed": ("changed", "mismatch", "missing")}


class TableMissing(Exception):
    """A reader on a lake without orders_daily: the one line it must stop with."""


def listed(ids) -> str:
    """The first five ids, as check_day lists them."""
    ids = sorted(ids)
    return ", ".join(map(str, ids[:5])) + (", ..." if len(ids) > 5 else "")


def values(order) -> tuple:
    """An order's (customer_id, amount, ordered_at, extras) as check_day compares them."""
    return tuple(order[1:5])


def verdict(day, orders, why: str, rows: list) -> tuple:
    """(ok, line) for a day: its rows (order_id, customer_id, amount, ordered_at, day, extras) against its
    file's orders (None: why there are none), ids and values, as check_day words it."""
    if orders is None:
        return False, f"PROBLEM {day}: {why}, {len(rows)} rows"
    rows = [row_values(row) for row in rows]
    counts, in_file = Counter(row[0] for row in rows), {order[0]: values(order) for order in orders}
    differing = {row[0]: values(row) for row in rows
                 if counts[row[0]] == 1 and row[0] in in_file and values(row) != in_file[row[0]]}
    kinds = {"missing": set(in_file) - set(counts), "not in the file": set(counts) - set(in_file),
             "duplicated": {order_id for order_id, count in counts.items() if count > 1}, "differing": set(differing)}
    head = f"{len(rows)} rows for the file's {len(in_file)} orders"
    found = [f"{len(ids)} {kind} ({listed(ids)})" for kind, ids in kinds.items() if ids]
    if not found:
        return True, f"ok {day}: {head}, 0 missing"
    first = min(differing, default=None)
    detail = "" if first is None else f"; order {first}: " + ", ".join(
        f"{name} {table} in the table, {file} in the file"
        for name, table, file in zip(*named(differing[first], in_file[first])) if table != file)
    return False, f"PROBLEM {day}: " + ", ".join([head] + found) + detail


def named(in_table: tuple, in_file: tuple) -> tuple:
    """(names, the table's values, the file's) of an order: the till's three, then each extra column by
    name (null where a side has none)."""
    table_extras, file_extras = dict(in_table[3]), dict(in_file[3])
    extras = sorted(set(table_extras) | set(file_extras))
    return ((*VALUES, *extras), (*in_table[:3], *(table_extras.get(name, "null") for name in extras)),
            (*in_file[:3], *(file_extras.get(name, "null") for name in extras)))


def day_verdict(model, day) -> tuple:
    """(ok, line, the table's rows of day) for day as the model holds it; an ok line names the table's new
    columns the file lacks (their rows hold null there)."""
    lines = model.till.files.get(day)
    checked = check_file(day, lines)
    rows = list(model.now.table.get(str(day), ())) if model.now else []
    why = "no file" if checked.error == "no file" else f"bad file ({checked.error})"
    ok, line = verdict(day, None if checked.error else checked.orders, why, rows)
    absent = [name for name in (model.now.names() if model.now else []) if name != RESCUED
              and name not in columns_of(lines or ("",))]
    return ok, f"{line}; no {', '.join(absent)} in the file (null in the table)" if ok and absent else line, rows


def check_day(model, run_date) -> tuple:
    """check_day.py's (ok, line) for run_date."""
    if model.now is None:
        raise TableMissing(TABLE_MISSING)
    ok, line, _ = day_verdict(model, run_date - dt.timedelta(days=1))
    return ok, line


def day_state(model, day) -> tuple:
    """(state, rows, check line) of day: the first of no file, missing, ok, changed, mismatch that applies
    (docs/check.md): changed while the day holds exactly the rows its latest load wrote, from another file."""
    ok, line, rows = day_verdict(model, day)
    lines = model.till.files.get(day)
    loaded = model.now.loaded.get(str(day)) if model.now else None
    if lines is None:
        state = "no file"
    elif not rows:
        state = "missing"
    elif ok:
        state = "ok"
    elif (loaded and loaded["sha256"] != file_sha256(lines)
          and loaded["rows_digest"] == rows_digest(map(row_values, rows))):
        state = "changed"
    else:
        state = "mismatch"
    return state, len(rows), line


def month_states(model, month: dt.date) -> list:
    """check_month's (day, state, rows, line) for every day of month."""
    if model.now is None:
        raise TableMissing(TABLE_MISSING)
    last = calendar.monthrange(month.year, month.month)[1]
    return [(str(day), *day_state(model, day)) for day in (month.replace(day=n) for n in range(1, last + 1))]


def chosen(model, run_dates: list, reprocess: str) -> list:
    """(run date, the state of its day, whether it runs) for --reprocess."""
    plan = []
    for run_date in run_dates:
        state = day_state(model, run_date - dt.timedelta(days=1))[0]
        plan.append((run_date, state, reprocess == "all" or state in CHOOSES[reprocess]))
    return plan


def dry_run(model, run_dates: list, reprocess: str) -> list:
    """backfill.py --dry-run's lines."""
    plan = chosen(model, run_dates, reprocess)
    words = "runs every date"
    if reprocess != "all":
        *most, last = CHOOSES[reprocess]
        words = f"runs the days that are {', '.join(most) + ' or ' if most else ''}{last}"
    lines = [f"dry run, --reprocess {reprocess}: {words}"]
    lines += [f"run {run_date} loads {run_date - dt.timedelta(days=1)}: {'would run' if runs else 'skip'} ({state})"
              for run_date, state, runs in plan]
    runs = sum(runs for _, _, runs in plan)
    return lines + [f"dry run: {runs} of {len(plan)} runs would run, {len(plan) - runs} skipped; nothing written"]


def closing_line(model, runs: int, failed: list, skipped: int, commits) -> str:
    """backfill's closing line without its time; commits None for a commit a run."""
    made = "" if commits is None else f" in {commits} commit{'' if commits == 1 else 's'}"
    named = f" ({', '.join(map(str, sorted(failed)))})" if failed else ""
    skips = f", {skipped} skipped" if skipped else ""
    now = model.now
    table = ("orders_daily does not exist" if now is None
             else f"orders_daily has {len(now.table)} days, {now.total()} orders")
    return f"ran {runs} runs{made}, {len(failed)} failed{named}{skips}; {table}"
