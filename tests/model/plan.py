"""An operation of a history as a Plan: the command a user types, the call into the shared session, the
writes the model expects it to make, and what it must print, as (exit code, lines) both ways.
"""
import datetime as dt
from dataclasses import dataclass, field

ONE_DAY = dt.timedelta(days=1)


def printed(code: int, out: str, err: str) -> tuple:
    """A process's (exit code, lines): stdout's, then stderr's (the one `error: ...` line)."""
    return code, out.splitlines() + err.splitlines()


@dataclass
class Plan:
    argv: list                                   # the script and its arguments, as a user types them
    call: object                                 # call(spark, show) -> (code, lines), in the shared session
    expect: object                               # expect(model, results) -> (code, lines)
    threads: list = field(default_factory=list)  # the writes: lists of steps, each step(model) -> Outcome
    parse: object = printed                      # parse(code, stdout, stderr) -> (code, lines)
    parts: list = field(default_factory=list)    # the plans of two writers at once


def error_or(outcome, lines) -> tuple:
    refused = next(iter(outcome.refused.values()), "") if outcome.refused else ""
    return (1, [f"error: {refused}"]) if refused else (0, lines)
