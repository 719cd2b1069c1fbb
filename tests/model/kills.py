"""Where a kill landed: before a commit, inside a write, or after a commit. A write that was killed
inside left data files in the table's folder that no commit of its Delta log names; one killed after a
commit left a version newer than the table had before; one killed before left neither.
"""
import json
from pathlib import Path

from model.upkeep_plan import COMMIT


def unlogged(table: Path) -> set:
    """The table's data files (relative paths) that no commit of its log adds."""
    if not (table / "_delta_log").is_dir():
        return set(str(path.relative_to(table)) for path in table.rglob("*.parquet")) if table.is_dir() else set()
    logged = set()
    for commit in (path for path in (table / "_delta_log").iterdir() if COMMIT.fullmatch(path.name)):
        for line in commit.read_text().splitlines():
            logged.add(json.loads(line).get("add", {}).get("path"))
    found = (path.relative_to(table) for path in table.rglob("*.parquet"))  # a folder's, or a bucket's prefix's
    return {str(path) for path in found if "_delta_log" not in path.parts and str(path) not in logged}


def newest(table: Path) -> int:
    """The table's newest version (-1: none)."""
    log = table / "_delta_log"
    return max((int(path.stem) for path in log.iterdir() if COMMIT.fullmatch(path.name)), default=-1) \
        if log.is_dir() else -1


def where(table: Path, unlogged_before: set, versions_before: int) -> str:
    """'inside', 'after' or 'before': where the kill of a writer landed (see above)."""
    if unlogged(table) - unlogged_before:
        return "inside"
    return "after" if newest(table) >= versions_before else "before"
