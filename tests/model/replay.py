"""The model follows the table: the commits an operation made, read from the table's history, are
matched with the writes the model expected of it, in the order they landed, and the model's table is
then compared with the real one row by row.

Writes at once (two writers, --parallel) land in an order nobody chose: the model takes each new
commit as the next write of whichever of its threads (a process, a parallel unit) it is, works that
write out on the model as it then is, and checks the commit's history entry against it. A killed writer
may have landed any prefix of its writes; one that ran to its end must have landed every write that
the model says lands, and nothing else.
"""
import copy
from dataclasses import dataclass

from model.table_model import Outcome, Version, load_outcome, restore_outcome

STORED_FIRST = "order_id already stored on another day"
TAKEN_BACK = "undo of version {version}: an order id of its file was stored on another day first"


@dataclass
class Undo:
    """A day of a write that landed over a clash, and must be put back as it was before that write."""
    outcome: Outcome
    run_date: object
    day: object
    version: int        # the write's version
    expected: Outcome   # the commit that puts the day back, as worked out when the write landed
    written: tuple      # the day's rows as the write left them


def undo_outcome(model, day, version: int) -> Outcome:
    """The commit that puts day back as it was just before version (late_clash.put_back)."""
    outcome = restore_outcome(model, day, day, version - 1)
    outcome.entry = {**outcome.entry, "note": f"{outcome.entry['note']} ({TAKEN_BACK.format(version=version)})"}
    return outcome

UNREAD = object()  # not read yet


def identity(entry: dict) -> tuple:
    """What names a commit: the runs and days of its lineage, its note, its predicate."""
    lineage = entry["lineage"]
    days = lineage.get("days", [lineage] if lineage else [])
    return tuple((day.get("run_date"), day.get("day")) for day in days), entry["note"], entry["predicate"]


def without_time(entry: dict) -> dict:
    """A history entry as the model writes it: without its commit time and version."""
    return {key: value for key, value in entry.items() if key not in ("timestamp", "version")}


class Follower:
    """Walks the threads of one operation's writes while the table's new commits are matched to them."""

    def __init__(self, model, threads: list):
        self.model, self.threads = model, threads
        self.results = [[] for _ in threads]  # each step's Outcome, thread by thread
        self.start = dict(model.now.table) if model.now else {}  # what every id check saw at least
        self.undos = []  # the days of writes that landed over a clash, to be put back (late_clash.py)

    def next_write(self, thread: int):
        """The Outcome of the thread's next step that commits, on the model as it is now; the steps before
        it that commit nothing (refused runs) are taken as done."""
        steps, done = self.threads[thread], self.results[thread]
        while len(done) < len(steps):
            outcome = steps[len(done)](self.model)
            if outcome.version is not None:
                return outcome
            done.append(outcome)
        return None

    def ways(self, entry: dict):
        """Each way to adopt one new commit: (a copy of this follower that adopted it, what diverged or '').
        Two threads may make the same write (a load and a backfill's run of one date): each is a way."""
        for at, undo in enumerate(self.undos):
            if identity(undo.expected.entry) == identity(entry):
                branch = copy.deepcopy(self)
                yield branch, branch.take_undo(branch.undos[at], entry)
                return
        found = False
        for thread in range(len(self.threads)):
            branch = copy.deepcopy(self)
            outcome = branch.next_write(thread)
            if outcome is not None and identity(outcome.entry) == identity(entry):
                found = True
                branch.results[thread].append(outcome)
                branch.model.commit(outcome)
                yield branch, ("" if without_time(entry) == outcome.entry else
                               f"history: version {entry['version']} is {without_time(entry)}, "
                               f"expected {outcome.entry}")
        if not found:
            yield self.late_way(entry)

    def late_way(self, entry: dict) -> tuple:
        """The way to adopt a commit no thread's next write makes: a write landed over a clash, or none. Only
        writes at once (two writers, a backfill's parallel units) can land over a clash another made."""
        branch = copy.deepcopy(self)
        for thread in range(len(self.threads) if len(self.threads) > 1 else 0):
            problem = branch.take_late(thread, entry)
            if problem is not None:
                return branch, problem
        return branch, (f"history: version {entry['version']} is a commit no write of this operation makes: "
                        f"{without_time(entry)}")

    def take_late(self, thread: int, entry: dict):
        """Adopt entry as a load of the thread whose id check read the table as at the operation's start,
        landed over an id another write of the operation committed on another day first: its clashing
        days must then be put back (late_clash.py). What diverged, '' if it fits, None if it is not one."""
        steps, done = self.threads[thread], self.results[thread]
        places = ([len(done) - 1] if done and done[-1].version is None else []) + \
                 ([len(done)] if len(done) < len(steps) else [])
        for place in places:
            how = getattr(steps[place], "keywords", {})
            if "runs" not in how:
                continue
            serial = load_outcome(self.model, **how)
            late = load_outcome(self.model, **{**how, "clash_table": self.start})
            back = [(run_date, day) for run_date, day, _ in late.loaded
                    if STORED_FIRST in serial.refused.get(run_date, "")]
            if late.version is None or not back or identity(late.entry) != identity(entry):
                continue
            version = len(self.model.versions)
            self.model.commit(late)
            outcome = Outcome(late.version if serial.loaded else None, late.entry, dict(serial.refused),
                              serial.loaded)
            done[place:] = [outcome]
            for run_date, day in back:
                self.undos.append(Undo(outcome, run_date, day, version,
                                       undo_outcome(self.model, day, version), late.version.table.get(str(day))))
            if without_time(entry) != late.entry:
                return f"history: version {entry['version']} is {without_time(entry)}, expected {late.entry}"
            return ""
        return None

    def take_undo(self, undo, entry: dict) -> str:
        """Adopt the commit that puts a day back as it was before the write that landed over a clash."""
        self.undos.remove(undo)
        expected = undo_outcome(self.model, undo.day, undo.version)
        self.model.commit(expected)
        undo.outcome.refused[undo.run_date] += (f" (another writer committed that id first; this load landed in "
                                                f"version {undo.version} and was taken back in version "
                                                f"{entry['version']})")
        if without_time(entry) != expected.entry:
            return f"history: version {entry['version']} is {without_time(entry)}, expected {expected.entry}"
        return ""

    def finish(self, killed: bool) -> str:
        """After the last new commit: every write that lands must have landed, unless the writer was killed."""
        for undo in self.undos:  # not needed once a later write replaced the day (late_clash.put_back)
            if not killed and self.model.now.table.get(str(undo.day)) == undo.written:
                return f"history: {undo.day} was not put back after version {undo.version}"
        for thread in range(len(self.threads)):
            outcome = self.next_write(thread)
            if outcome is not None and not killed:
                return f"history: no commit for a write that lands: {outcome.entry}"
        return ""


def explore(follower: Follower, entries: list, killed: bool) -> tuple:
    """(the follower that matched every entry, '') by the first way that diverges nowhere; else the
    first way's (follower, what diverged)."""
    if not entries:
        return follower, follower.finish(killed)
    first = None
    for branch, problem in follower.ways(entries[0]):
        if not problem:
            branch, problem = explore(branch, entries[1:], killed)
            if not problem:
                return branch, ""
        first = first or (branch, problem)
    return first


def follow(model, threads: list, new_entries: list, killed: bool = False) -> tuple:
    """(the Outcomes per thread, what diverged or '') once the new commits are matched with the threads;
    the model then holds the versions of the way they were matched."""
    follower, problem = explore(Follower(model, threads), new_entries, killed)
    model.versions[:], model.entries[:] = follower.model.versions, follower.model.entries
    return follower.results, problem


def table_content(spark):
    """orders_daily's rows by day and its columns beyond the till's, as the model holds them (None: no table)."""
    from delta_session import table_exists
    from model.fresh_read import read_all
    return content_of(read_all(spark)) if table_exists(spark) else None


def content_of(found: dict) -> tuple:
    """(rows by day, columns) of fresh_read.read_all's JSON, as tuples."""
    rows = ((*row[:5], tuple(map(tuple, row[5]))) for row in found["rows"])
    return rows_by_day(rows), tuple(map(tuple, found["columns"]))


def rows_by_day(rows) -> dict:
    """Rows grouped by their day (their fifth field), each day's sorted."""
    days = {}
    for row in rows:
        days.setdefault(row[4], []).append(tuple(row))
    return {day: tuple(sorted(found)) for day, found in days.items()}


def content_difference(expected: Version, found) -> str:
    """'' when the table holds exactly the model's rows and columns, else the first days that differ."""
    if expected is None or found is None:
        return "" if expected is found else f"table: expected {'none' if expected is None else 'one'}, found " \
                                             f"{'none' if found is None else 'one'}"
    found, columns = found
    days = sorted(set(expected.table) | set(found))
    differ = [f"{day}: expected {expected.table.get(day, ())}, found {found.get(day, ())}"
              for day in days if expected.table.get(day, ()) != found.get(day, ())]
    if columns != expected.columns:
        differ.insert(0, f"columns beyond the till's: expected {expected.columns}, found {columns}")
    return "table: " + "; ".join(differ[:3]) if differ else ""


def new_commits(spark, known: int) -> list:
    """The history entries of the versions from known on, oldest first."""
    from delta_session import table_exists
    from history import table_history
    if not table_exists(spark):
        return []
    return sorted((entry for entry in table_history(spark, 10 ** 6) if entry["version"] >= known),
                  key=lambda entry: entry["version"])
