"""The simplest history that still shows a divergence: delta debugging over its operations, then over
its days, then each operation made simpler (a smaller range, fewer days a commit, no parallelism, no
dry run, a function instead of a process, one writer instead of two, a killed run let finish), each
candidate replayed in a fresh folder. A candidate counts only when it diverges the same way: the same
check (table, history, states, printed, ...) on the same day. Then the report a user can paste.
"""
import json
import time
from pathlib import Path

from model.histories import without_day
from model.processes import fresh_root
from model.runner import run_history


class Shrinker:
    """Replays candidate histories until its time is up; a candidate counts when it diverges the same way."""

    def __init__(self, spark, kind: str, seconds: float, folder: Path, on: str = None):
        self.spark, self.kind, self.folder, self.on = spark, kind, folder, on
        self.deadline, self.tries = time.monotonic() + seconds, 0

    def diverges(self, history: dict):
        """The candidate's Run when it diverges as the original did, else None (also once time is up)."""
        if time.monotonic() > self.deadline or not history["ops"]:
            return None
        self.tries += 1
        run = run_history(self.spark, history, fresh_root(self.folder, self.on))
        return run if run.kind == self.kind else None

    def fewer_ops(self, history: dict, run):
        """ddmin over the operations: leave out chunks, halving them while none can go."""
        ops, chunks = history["ops"], 2
        while len(ops) >= 2 and time.monotonic() < self.deadline:
            size = -(-len(ops) // chunks)
            for at in range(0, len(ops), size):
                found = self.diverges({**history, "ops": ops[:at] + ops[at + size:]})
                if found:
                    ops, run, chunks = ops[:at] + ops[at + size:], found, max(chunks - 1, 2)
                    break
            else:
                if chunks >= len(ops):
                    break
                chunks = min(len(ops), chunks * 2)
        return {**history, "ops": ops}, run

    def simpler_ops(self, history: dict, run):
        """Each operation in turn replaced by a simpler form of it, while the divergence stays."""
        ops, at = list(history["ops"]), 0
        while at < len(ops) and time.monotonic() < self.deadline:
            for variant in simpler(ops[at]):
                candidate = {**history, "ops": ops[:at] + [variant] + ops[at + 1:]}
                found = self.diverges(candidate)
                if found:
                    ops, run = candidate["ops"], found
                    break
            else:
                at += 1
        return {**history, "ops": ops}, run

    def fewer_days(self, history: dict, run):
        """Leave out the last day, or the first, while the divergence stays."""
        while history["days"] > 1:
            for at_end in (True, False):
                candidate = without_day(history, at_end)
                found = self.diverges(candidate)
                if found:
                    history, run = candidate, found
                    break
            else:
                return history, run
        return history, run


def simpler(op: dict) -> list:
    """Simpler forms of one operation, each a step from it."""
    forms = [dict(one) for one in op.get("ops", [])]                           # one writer of two, alone
    forms += [{**op["target"], "process": True}] if op["op"] == "kill" else []  # the killed run let finish
    for key, plain in (("process", False), ("dry_run", False), ("parallel", 1), ("per_commit", 1)):
        if key in op and op[key] != plain:
            forms.append({**op, key: plain})
    if op.get("per_commit") in (0, 3):                                         # fewer days a commit
        forms.append({**op, "per_commit": 2})
    if op.get("last", 0) > op.get("first", 0):                                 # a smaller range
        forms += [{**op, "first": op["first"] + 1}, {**op, "last": op["last"] - 1}]
    return forms


def upto_divergence(history: dict, run) -> dict:
    """The operations up to the one that diverged (those after it cannot matter)."""
    at = len(run.commands) if run.kind != "fresh read" else len(history["ops"])
    return {**history, "ops": history["ops"][:at]}


def shrink(spark, history: dict, run, seconds: float, folder: Path, on: str = None) -> tuple:
    """(the shortest history found within seconds, its Run, how many candidates were replayed); each
    candidate in a root below folder, or below on (an object store's URI)."""
    shrinker = Shrinker(spark, run.kind, seconds, folder, on)
    history = upto_divergence(history, run)
    for fewer in (shrinker.fewer_ops, shrinker.fewer_days, shrinker.fewer_ops, shrinker.simpler_ops):
        history, run = fewer(history, run)
        history = upto_divergence(history, run)
    return history, run, shrinker.tries


def label(history: dict) -> str:
    """How a history is named in what the model check prints: `history NAME` (model/fixed.py) or `seed N`."""
    return f"history {history['name']}" if history.get("name") else f"seed {history['seed']}"


def replay_report(history: dict, run) -> str:
    """The divergence, and the history as shell commands to paste, then as the model check's own replay."""
    commands = "\n".join(f"  {line}" for line in run.commands)
    named, history = label(history), {key: value for key, value in history.items() if key != "name"}
    return (f"{named}: {run.divergence}\n"
            f"shortest history found: {len(history['ops'])} operations on {history['days']} days from "
            f"{history['first']}; as shell commands, in the project folder:\n"
            f"  source .venv/bin/activate\n  R=$(mktemp -d) && mkdir -p \"$R/landing/orders\"\n{commands}\n"
            f"and through the model check, which says what diverges:\n"
            f"  python tests/model_check.py --history '{json.dumps(history, separators=(',', ':'))}'")
