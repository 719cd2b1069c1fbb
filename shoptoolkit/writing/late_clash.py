"""An order id another writer stored on another day while this write was on its way: found after this
write's commit, and the days it clashes on put back as they were.

    checked_at = version_checked(spark)          # before the id check
    ... the id check, the write (one commit, user metadata M) ...
    taken_back = take_back_late_clashes(spark, checked_at, M, loaded, clashes_at)   # {day: line}

Delta lets two writes both commit when neither read files the other changed, and it tells by partition:
on a table partitioned by order_date a load reads nothing of another day. So two loads whose files share
an order id that no day holds yet both pass their id check and both commit, and the id is on two days. On
any table the same gap opens when another writer commits between a load's id check and the start of its
transaction. Run one after the other, the second run would have been refused; so the later commit gives
way: a write whose id check saw version V and whose commit is C > V + 1 looks for its days' ids on the
other days as the table stood at C - 1, and puts each day that clashes back as it was at C - 1, in a
commit of its own with restore_day's note (so the day states read it as a restore) and the reason. Its
run fails with the line a run after the other would print, and says so. A write that nobody overtook
pays one listing of the log for this.

The same gap lets a load's lineage miss a column: a load checks its file against the table's columns, and
another writer may give the table a new column (docs/new_columns.md) after that check and before this
write's transaction begins; Delta sees no conflict. So an overtaken commit whose load names the columns it
was checked against (columns) compares them with the table's at C - 1; when they differ, its days are put
back as they were at C - 1 and ColumnsChanged is raised, a write conflict retry.py tries again.
"""
from shoptoolkit.storage.project_paths import table_path
from shoptoolkit.table.delta_table import checked_version, history_frame, table_at_version, table_version
from shoptoolkit.table.load_lineage import commit_loads, restore_note
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.new_columns import table_extras
from shoptoolkit.writing.conflicts import ColumnsChanged
from shoptoolkit.writing.retry import print_now, retrying

TAKEN_BACK = "undo of version {version}: an order id of its file was stored on another day first"
COLUMNS_TAKEN_BACK = "undo of version {version}: the table gained a column after its file was checked"


def version_checked(spark) -> int:
    """The table's newest version before an id check (-1: no table yet): the check sees it or a later one."""
    return checked_version(spark)


def overtaken_commit(spark, checked_at: int, metadata: str):
    """The version of the commit with this user metadata when another commit landed between checked_at and
    it (the check may have missed that one's ids); None when none did."""
    newest = table_version(spark)
    if newest <= checked_at + 1:
        return None
    for commit in history_frame(spark, newest - checked_at).select("version", "userMetadata").collect():
        if commit.userMetadata == metadata:  # newest first
            return commit.version if commit.version > checked_at + 1 else None
    return None


def day_predicate(day) -> str:
    return f"{PARTITION_COLUMN} = DATE'{day}'"


def still_as_written(spark, day, version: int) -> bool:
    """Whether day holds the rows version wrote, i.e. no later write replaced them."""
    now = table_at_version(spark, table_version(spark)).where(day_predicate(day))
    then = table_at_version(spark, version).where(day_predicate(day))
    return now.exceptAll(then).isEmpty() and then.exceptAll(now).isEmpty()


def put_back(spark, day, version: int, show=print_now, why: str = TAKEN_BACK) -> int:
    """Day as it was just before version, in one commit (none when a later write has replaced the day
    since: that write stands, as it would after this one); the new version, or None. why: the note's reason."""
    note = f"{restore_note(day, day, version - 1)} ({why.format(version=version)})"
    before = table_at_version(spark, version - 1).where(day_predicate(day))

    def write():
        if not still_as_written(spark, day, version):
            return None
        (before.write.format("delta").mode("overwrite").option("replaceWhere", day_predicate(day))
         .option("userMetadata", note).save(str(table_path())))
        return table_version(spark)
    return retrying(write, f"undo of {day} in version {version}", show)


def take_back_late_clashes(spark, checked_at: int, metadata: str, clashes_at, show=print_now,
                           columns: dict = None) -> dict:
    """{day: its refusal line, saying what happened} for the days of the commit with this metadata whose
    ids were on another day just before it (clashes_at(table) -> {day: line}, table: orders_daily as at that
    version); each such day is put back as it was then. {} when no commit landed between checked_at and it.
    columns: the table's new columns ({name: type}) the load was checked against; ColumnsChanged when the
    table had others just before the commit (its days put back first)."""
    version = overtaken_commit(spark, checked_at, metadata)
    if version is None:
        return {}
    before = table_at_version(spark, version - 1)
    if columns is not None and table_extras(before.schema) != columns:
        take_back_columns(spark, version, metadata, set(table_extras(before.schema)) - set(columns), show)
    lines = {}
    for day, line in clashes_at(before).items():
        undone = put_back(spark, day, version, show)
        lines[day] = line + (f" (another writer committed that id first; this load landed in version {version} "
                             f"and was taken back in version {undone})" if undone is not None else "")
    return lines


def take_back_columns(spark, version: int, metadata: str, added, show=print_now) -> None:
    """Put back each day of the commit (version, its metadata) that was checked without the columns another
    writer added (added) first; ColumnsChanged, for retry.py."""
    undone = [put_back(spark, entry["day"], version, show, COLUMNS_TAKEN_BACK) for entry in commit_loads(metadata)]
    raise ColumnsChanged(f"version {version} was checked against the table's columns before another writer "
                         f"gave it {', '.join(sorted(added)) or 'other columns'}; taken back in version "
                         f"{max((one for one in undone if one is not None), default=version)}")
