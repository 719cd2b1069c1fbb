"""Two first loads at once: a folder without commits is a table being created, not a damaged one.

    from shoptoolkit.table.first_load import CreatingWriter, being_created
    CreatingWriter(writer).save(path)    # a write that creates orders_daily: its save holds the lock

A first write makes lake/orders_daily/ (its data files) long before its commit, version 0, lands.
While it writes, it holds a shared flock on lake/.orders_daily.creating; a load that finds the folder
without commits and that lock held is another first load: it writes as a first load too, the two race
for version 0, and the one whose commit is refused retries into the table the other made (retry.py,
DELTA_PROTOCOL_CHANGED). A folder without commits and nobody holding the lock is what it was before:
a deleted log or an interrupted first load, refused (delta_session.table_exists).
On an object store's root there is no lock: a store has no flock. A table without commits there is
refused as damaged, and of two first loads at once the second's commit is refused by Delta's own.
"""
import fcntl
import shutil
import time
from contextlib import contextmanager

from shoptoolkit.storage.location import is_local
from shoptoolkit.storage.project_paths import table_path
from shoptoolkit.table.delta_log_check import newest_commit

PROBES = 200  # tries (10 ms apart) while another process probes the lock at the same instant


def creating_lock():
    """lake/.orders_daily.creating: beside the table's folder, so that taking it makes no folder."""
    return table_path().with_name(f".{table_path().name}.creating")


def took(lock, how: int) -> bool:
    try:
        fcntl.flock(lock, how | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False


def being_created() -> bool:
    """A first load holds the lock now. Writers hold it shared, a probe exclusive for an instant: when
    the exclusive try fails and a shared one works, only writers hold it."""
    if not is_local(table_path()) or not creating_lock().exists():  # an object store has no flock
        return False
    try:
        with open(creating_lock(), "a") as lock:
            for _ in range(PROBES):
                if took(lock, fcntl.LOCK_EX):
                    return False
                if took(lock, fcntl.LOCK_SH):
                    return True
                time.sleep(0.01)  # another probe holds it exclusive
    except OSError:  # a file system without flock (some FUSE mounts): nobody can say, so not
        pass
    return False


@contextmanager
def creating():
    """Hold the lock shared while a write that may create the table runs (on a local root only)."""
    if not is_local(table_path()):  # a store has no flock: a second first load is refused by Delta's commit
        yield
        return
    creating_lock().parent.mkdir(parents=True, exist_ok=True)
    with open(creating_lock(), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH)
        except OSError:  # no flock here: the write goes on, and a second first load is refused as before
            pass
        yield


def clear_unborn() -> None:
    """Delete the table's folder when it holds no commit and no other first load holds the lock (taken
    exclusive meanwhile): what a first load that committed nothing leaves, its job's files. Local roots."""
    if not is_local(table_path()) or not creating_lock().exists():
        return
    with open(creating_lock(), "a") as lock:
        if took(lock, fcntl.LOCK_EX) and newest_commit(table_path() / "_delta_log") < 0:
            shutil.rmtree(table_path(), ignore_errors=True)


class CreatingWriter:
    """A DataFrameWriter whose save creates the table: the save runs inside creating()."""

    def __init__(self, writer):
        self.writer = writer

    def save(self, path):
        with creating():
            return self.writer.save(path)
