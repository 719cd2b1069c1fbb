"""Which errors are a write conflict lost to another writer, by their Spark/Delta error class.

    from shoptoolkit.writing.conflicts import error_class, is_write_conflict
    if is_write_conflict(error): ...      # retry.py tries the write again; parallel.py names the class
"""
import re

from shoptoolkit.errors import ToolkitError

ERROR_CLASS = re.compile(r"\[([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)\]")
# Delta's conflicts where the losing commit landed nothing and read files another writer changed:
# ConcurrentAppendException (the usual one: the winner added files this write should have read),
# ConcurrentDeleteRead/DeleteDelete (the winner removed files this write read or removes too, as a
# restore that empties a day does), and ProtocolChangedException: two first loads both creating the
# table, the loser's version 0 refused (the winner's holds the one protocol and metadata); its retry
# finds the table and writes its day into it. MetadataChangedException: upkeep.py set the table's undo
# window (its properties), or another load gave the table a new column (docs/new_columns.md), while this
# write was under way; nothing of it landed either. COLUMNS_CHANGED is the toolkit's own: ColumnsChanged.
WRITE_CONFLICTS = ("DELTA_CONCURRENT_APPEND", "DELTA_CONCURRENT_DELETE_READ", "DELTA_CONCURRENT_DELETE_DELETE",
                   "DELTA_PROTOCOL_CHANGED", "DELTA_METADATA_CHANGED", "COLUMNS_CHANGED")


class ColumnsChanged(ToolkitError):
    """Another writer gave the table a column after this load's check and before its transaction began, so
    Delta saw no conflict but the commit's lineage was made for the columns before: the commit has been
    taken back (late_clash.py), and a retry checks the file again on the table's columns now."""
    CLASS = "COLUMNS_CHANGED_BEFORE_COMMIT"

    def getCondition(self) -> str:  # error_class's answer, as Spark's errors give theirs
        return self.CLASS


def error_class(error: BaseException) -> str:
    """A Spark or Delta error's class, e.g. DELTA_CONCURRENT_APPEND.WITHOUT_HINT; '' if it has none.

    getCondition() where it answers (Spark 4, classic and Connect), else the bracketed class in
    the message: Delta's exceptions, as classic PySpark wraps them, answer None to getCondition()."""
    condition = getattr(error, "getCondition", None)
    found = condition() if callable(condition) else None
    if found:
        return found
    match = ERROR_CLASS.search(str(error))
    return match.group(1) if match else ""


def is_write_conflict(error: BaseException) -> bool:
    """A lost race with another writer that a retry can win (retry.py)."""
    return error_class(error).startswith(WRITE_CONFLICTS)
