"""Try a write again when it loses a write conflict to another writer: the one rule every writer follows.

    from shoptoolkit.writing.retry import retrying
    line = retrying(lambda: load_day(spark, "2026-09-16"), "run 2026-09-16")

Used by load_day.py, backfill.py (in order and --parallel), restore_day.py and partition_table.py.
Only Delta's write conflicts are retried (is_write_conflict): the commit that lost landed nothing
(or, the toolkit's own ColumnsChanged, was put back: late_clash.py), and each writer here works its
write out again from the files or a fixed version at each attempt, so trying again is safe. Any other
error is raised at once.

At most 8 attempts in all (SHOP_WRITE_ATTEMPTS sets another number), waiting 1 s, 2 s, 4 s, 8 s,
16 s, then 30 s before them, each times a random factor from 0.5 to 1.5 (jitter, so that the
losers do not collide again in step). Each retry shows one line; when the last attempt loses too,
a ToolkitError says so in one line.
"""
import os
import random
import time

from shoptoolkit.errors import ToolkitError
from shoptoolkit.writing.conflicts import error_class, is_write_conflict

ATTEMPTS = 8
ATTEMPTS_ENV = "SHOP_WRITE_ATTEMPTS"
PAUSE = 1.0  # seconds before the first retry; doubled for each further one up to MAX_PAUSE
MAX_PAUSE = 30.0


def write_attempts() -> int:
    """How many attempts a write gets: SHOP_WRITE_ATTEMPTS when set, else ATTEMPTS."""
    text = os.environ.get(ATTEMPTS_ENV, "").strip()
    if not text:
        return ATTEMPTS
    if not text.isdigit() or int(text) < 1:
        raise ToolkitError(f"{ATTEMPTS_ENV}={text!r} is not a number of attempts (1 or more)")
    return int(text)


def pause_before(attempt: int, pause: float = PAUSE) -> float:
    """Seconds to wait after attempt (1, 2, ...) lost: doubling, capped, jittered."""
    return min(pause * 2 ** (attempt - 1), MAX_PAUSE) * random.uniform(0.5, 1.5)


def print_now(line: str) -> None:
    """A retry's line, shown at once: under an orchestrator stdout is a pipe, buffered."""
    print(line, flush=True)


def retrying(write, what: str, show=print_now, attempts=None, pause: float = PAUSE):
    """write(), tried again after a lost write conflict, at most attempts times in all; its result.

    what names the write in the lines, e.g. `run 2026-09-16` or `restore 2026-09-15`."""
    attempts = attempts or write_attempts()
    for attempt in range(1, attempts + 1):
        try:
            return write()
        except Exception as error:
            if not is_write_conflict(error):
                raise
            if attempt == attempts:
                raise ToolkitError(f"{what} lost a write conflict ({error_class(error)}) on its last attempt "
                                   f"({attempts} of {attempts}): another writer committed first each time; "
                                   f"nothing of it was written, run it again") from error
            wait = pause_before(attempt, pause)
            show(f"{what} lost a write conflict ({error_class(error)}); "
                 f"attempt {attempt + 1} of {attempts} in {wait:.1f} s")
            time.sleep(wait)
