"""What an operation printed, made comparable with what the model says it prints: a backfill's run
lines without their place (3/30) and time, a retry's line left out (the model cannot know when a write
conflict happens), and, for writes at once, the table's total after each commit masked and the lines
sorted (which commit a total was read after, and which run ends first, is not the model's to say); a
backfill's closing line's table may even not exist yet, when the other writer makes it.
A killed operation's lines must be what it would have printed, up to where it was stopped.
"""
import re

PLACE = re.compile(r"^\d+/\d+ (?=run )")                   # backfill.py's place of a run's line
TIME = re.compile(r" \(\d+\.\d+ s\)$")                     # a run's, a commit's or the closing line's time
TOTAL = re.compile(r"(orders_daily has) \d+(?=[;,]| \(|$)")  # the table's total after a commit
STATE = re.compile(r"orders_daily (?:has \d+ days, \d+ orders|does not exist)")  # a backfill's closing line's
RETRY = "lost a write conflict"


def plain(lines) -> list:
    """The lines without places, times and retries."""
    return [TIME.sub("", PLACE.sub("", line)) for line in lines if RETRY not in line]


def masked(lines) -> list:
    """The lines of writes at once: totals masked, in sorted order but the closing line last."""
    lines = [TOTAL.sub(r"\1 N", STATE.sub("orders_daily has N days", line)) for line in lines]
    closing = [line for line in lines[-1:] if line.startswith("ran ")]
    return sorted(lines[:len(lines) - len(closing)]) + closing


def same(observed: tuple, expected: tuple, at_once: bool, killed: bool) -> bool:
    """Whether (code, lines) observed is what the model expects: a killed one's lines a prefix of them
    (any of them, for writes at once), its code not compared."""
    lines, wanted = plain(observed[1]), plain(expected[1])
    if at_once:
        lines, wanted = masked(lines), masked(wanted)
    if not killed:
        return observed[0] == expected[0] and lines == wanted
    if at_once:
        return all(lines.count(line) <= wanted.count(line) for line in lines)
    return lines == wanted[:len(lines)]
