"""Seeded histories: a few consecutive days of September 2026 and a list of operations on them.

A history is plain JSON, so a shrunk one can be printed and replayed:
    {"seed": 7, "first": "2026-09-11", "days": 5, "zone": "UTC", "ops": [{"op": "write", "day": 0, "pick": 4711}, ...]}
An operation names days by their place (0 is the first day) and says nothing of the table's state: what
it does is worked out when it runs (a restore goes `back` versions from the newest), so a history with
operations left out still runs.
"""
import datetime as dt
import random

from model.foreign import EXTRA_KINDS, KINDS as FOREIGN_KINDS
from model.till import SPOILS

TILL = {"write": 4, "big": 1, "late": 5, "correct": 4, "delete": 2, "spoil": 5, "restore_file": 3}
TOOLKIT = {"load": 8, "check_day": 4, "check_month": 3, "backfill": 8, "restore": 5, "partition": 1,
           "history": 2, "writers": 3, "kill": 3, "upkeep": 2, "foreign": 3}
ZONES = ("UTC", "America/New_York", "Asia/Kolkata")  # the shared session's time zone in a history
VECTORS = 0.3  # the share of histories in which another writer turns deletion vectors on, once
AS_PROCESS = 0.1  # the share of operations run as a script's process rather than its function
KILLABLE = ("load", "backfill", "restore", "partition")
SCRIPTS = ("load", "check_day", "check_month", "backfill", "restore", "partition", "history", "upkeep")


def days_of(history: dict) -> list:
    """The history's days, as dates."""
    first = dt.date.fromisoformat(history["first"])
    return [first + dt.timedelta(days=n) for n in range(history["days"])]


def day_range(rng, days: int, longest: int = None) -> tuple:
    """(first, last) places of a range of days, at most longest days long."""
    first = rng.randrange(days)
    return first, min(days - 1, first + rng.randrange(longest or days))


def till_op(rng, kind: str, days: int) -> dict:
    """What the till does to a day's file; pick chooses the order's fields, the line, the earlier content."""
    op = {"op": kind, "day": rng.randrange(days), "pick": rng.randrange(10 ** 6)}
    if kind == "spoil":
        op["kind"] = rng.choice(SPOILS)
    return op


def backfill_op(rng, days: int, plain: bool = False) -> dict:
    """A backfill of a range: a commit a run or N days a commit, in order or N at once, --reprocess, --dry-run."""
    first, last = day_range(rng, days, 3 if plain else None)
    if plain:  # one of two writers at once: its loads are what support/holding.py holds
        return {"op": "backfill", "first": first, "last": last, "per_commit": 1, "parallel": 1, "reprocess": "all"}
    return {"op": "backfill", "first": first, "last": last, "per_commit": rng.choice([1, 1, 1, 2, 3, 0]),
            "parallel": rng.choice([1, 1, 1, 2]),
            "reprocess": rng.choice(["all", "all", "failed", "missing", "changed"]),
            "dry_run": rng.random() < 0.2}


def toolkit_op(rng, kind: str, days: int) -> dict:
    """A run of the toolkit, two writers at once, or a writer to kill (3 to 15 s into its run)."""
    if kind in ("load", "check_day"):
        return {"op": kind, "day": rng.randrange(days)}
    if kind == "backfill":
        return backfill_op(rng, days)
    if kind == "restore":
        first, last = day_range(rng, days, 1 if rng.random() < 0.6 else None)
        back = -2 if rng.random() < 0.05 else rng.randint(1, 6)  # -2: a version the table does not have
        return {"op": "restore", "first": first, "last": last, "back": back, "dry_run": rng.random() < 0.2}
    if kind == "history":
        return {"op": "history", "limit": rng.randint(1, 12)}
    if kind == "upkeep":  # a day of October: September is a closed month
        return {"op": "upkeep", "today": f"2026-10-{rng.randint(1, 31):02d}", "dry_run": rng.random() < 0.25,
                "vacuum": rng.random() < 0.7}
    if kind == "writers":
        return {"op": "writers", "ops": [toolkit_op(rng, "load", days),
                                         rng.choice([toolkit_op(rng, "load", days), backfill_op(rng, days, True)])]}
    if kind == "foreign":  # another Delta client's write (model/foreign.py)
        return {"op": kind, "kind": rng.choice(FOREIGN_KINDS), "day": rng.randrange(days), "pick": rng.randrange(10 ** 6)}
    if kind == "kill":
        target = toolkit_op(rng, rng.choice(KILLABLE), days)
        return {"op": "kill", "target": {**target, "dry_run": False}, "after": round(rng.uniform(3, 15), 1)}
    return {"op": kind}


def random_op(rng, days: int) -> dict:
    """Any operation, by the weights above; a tenth of the toolkit's run as the script's process."""
    kinds = {**TILL, **TOOLKIT}
    kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
    op = till_op(rng, kind, days) if kind in TILL else toolkit_op(rng, kind, days)
    if kind in SCRIPTS:
        op["process"] = rng.random() < AS_PROCESS
    return op


def generate(seed: int, operations: int = None) -> dict:
    """The history of seed: 4 to 8 days, each file written (a few left out), most often a backfill of them
    all, then 8 to 16 operations; in some, deletion vectors turned on somewhere in the second half."""
    rng = random.Random(seed)
    days = rng.randint(4, 8)
    first = dt.date(2026, 9, 1) + dt.timedelta(days=rng.randrange(30 - days))
    ops = [till_op(rng, "write", days) | {"day": day} for day in range(days) if rng.random() < 0.85]
    if rng.random() < 0.75:  # most histories start as the shop does: the days backfilled
        ops.append({**backfill_op(rng, days), "first": 0, "last": days - 1, "reprocess": "all", "dry_run": False,
                    "process": False})
    ops += [random_op(rng, days) for _ in range(operations or rng.randint(8, 16))]
    if rng.random() < VECTORS:
        ops.insert(rng.randint(len(ops) // 2, len(ops)), {"op": "foreign", "kind": "vectors"})
    ops = with_columns(seed, with_values(seed, ops, days), days)
    return {"seed": seed, "first": str(first), "days": days, "ops": ops, "zone": random.Random(-seed).choice(ZONES)}


def with_values(seed: int, ops: list, days: int) -> list:
    """ops with a few changes of values put in among them, drawn from a second generator (the first one's
    draws, and so every earlier seed's operations, stay as they were): a line taken out of a file, another
    writer's move of an order's time, each after an operation chosen at random."""
    extra = random.Random(seed * 7919 + 1)
    ops = list(ops)
    for _ in range(extra.randint(0, 2)):
        added = (till_op(extra, "drop", days) if extra.random() < 0.5 else
                 {"op": "foreign", "kind": extra.choice(EXTRA_KINDS), "day": extra.randrange(days),
                  "pick": extra.randrange(10 ** 6)})
        ops.insert(extra.randint(1, len(ops)), added)
    return ops


def with_columns(seed: int, ops: list, days: int) -> list:
    """ops with a column change put in among them in half the histories, drawn from a third generator (the
    others' draws stay as they were): a day's file gains the column channel, then a load of that day with
    --on-new-column add or rescue, or without (fail's refusal); now and then a file loses it again, then a
    load of that day (docs/new_columns.md)."""
    extra = random.Random(seed * 7919 + 2)
    if extra.random() < 0.5:
        return ops
    ops, day = list(ops), extra.randrange(days)
    mode = extra.choice(["add", "add", "rescue", None])
    at = extra.randint(1, len(ops))
    ops.insert(at, {"op": "gain", "day": day, "pick": extra.randrange(10 ** 6)})
    ops.insert(extra.randint(at + 1, len(ops)), {"op": "load", "day": day, "process": extra.random() < AS_PROCESS,
                                                 **({"new_column": mode} if mode else {})})
    if extra.random() < 0.4:
        lost, at = extra.randrange(days), extra.randint(at + 1, len(ops))
        ops.insert(at, {"op": "lose", "day": lost, "pick": 0})
        ops.insert(extra.randint(at + 1, len(ops)), {"op": "load", "day": lost, "process": False})
    return ops


def without_day(history: dict, at_end: bool) -> dict:
    """The history on one day fewer (the last or the first): its operations on that day left out, ranges cut."""
    gone = history["days"] - 1 if at_end else 0
    shift = 0 if at_end else 1
    ops = [moved for moved in (shifted(op, gone, shift) for op in history["ops"]) if moved is not None]
    first = dt.date.fromisoformat(history["first"]) + dt.timedelta(days=shift)
    return {**history, "first": str(first), "days": history["days"] - 1, "ops": ops}


def shifted(op: dict, gone: int, shift: int):
    """op with day places renumbered after day gone is left out (None: the op was only about that day)."""
    op = dict(op)
    if "target" in op:
        op["target"] = shifted(op["target"], gone, shift)
        if op["target"] is None:
            return None
    if "ops" in op:
        op["ops"] = [moved for moved in (shifted(one, gone, shift) for one in op["ops"]) if moved is not None]
        if len(op["ops"]) < 2:
            return None
    if op.get("day") == gone:
        return None
    if "first" in op:
        kept = [place for place in range(op["first"], op["last"] + 1) if place != gone]
        if not kept:
            return None
        op["first"], op["last"] = kept[0] - shift, kept[-1] - shift
    if "day" in op:
        op["day"] -= shift
    return op
