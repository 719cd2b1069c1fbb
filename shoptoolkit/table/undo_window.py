"""The undo window: how long the table keeps what old versions need, so that restore_day.py can go back
to any version of that time. Set once on the table by upkeep.py, kept by every VACUUM after it.

    from shoptoolkit.table.undo_window import table_window, window_start
    window = table_window(spark)                 # the table's, or DEFAULT_WINDOW
    version, since = window_start(spark, window, now)

A version needs its log entry and its data files. VACUUM deletes a data file once the commit that
removed it is older than delta.deletedFileRetentionDuration; Delta drops log entries older than
delta.logRetentionDuration at its checkpoints; and Delta refuses to time travel to a version committed
longer ago than the first (BEYOND_WINDOW). So the window W is the first: the versions committed in the
last W can be restored. The log is kept LOG_MARGIN longer. Delta's retention check stays on: VACUUM is
never given a shorter RETAIN.
"""
import datetime as dt
import re

from shoptoolkit.table.delta_table import history_frame, table_sql_name

# A month and a few days: the month check at the start of a month can still undo any load of the month
# it checks. Delta's own default is 7 days; a daily load's replaced files are small.
DEFAULT_WINDOW = dt.timedelta(days=35)
BEYOND_WINDOW = "DELTA_UNSUPPORTED_TIME_TRAVEL_BEYOND_DELETED_FILE_RETENTION_DURATION"
LOG_MARGIN = dt.timedelta(days=30)  # the log outlives the files by this much (Delta's default log retention)
FILES_KEY = "delta.deletedFileRetentionDuration"
LOG_KEY = "delta.logRetentionDuration"
INTERVAL = re.compile(r"interval\s+(\d+)\s+(second|minute|hour|day|week)s?", re.IGNORECASE)
UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 604800}


def as_interval(window: dt.timedelta) -> str:
    """A Delta table property's interval: whole days when it is, else seconds."""
    seconds = int(window.total_seconds())
    return f"interval {seconds // 86400} days" if seconds % 86400 == 0 else f"interval {seconds} seconds"


def as_window(interval: str):
    """A timedelta from a Delta interval such as `interval 7 days`; None for one it cannot read."""
    found = INTERVAL.fullmatch((interval or "").strip())
    return dt.timedelta(seconds=int(found[1]) * UNIT_SECONDS[found[2].lower()]) if found else None


def shown_window(window: dt.timedelta) -> str:
    """`35 days`, `1 day`, `90 seconds`."""
    seconds = int(window.total_seconds())
    count, unit = (seconds // 86400, "day") if seconds % 86400 == 0 else (seconds, "second")
    return f"{count} {unit}{'' if count == 1 else 's'}"


def table_properties(spark) -> dict:
    """The table's properties (SHOW TBLPROPERTIES: its metadata only; DESCRIBE DETAIL would count its files)."""
    return {row.key: row.value for row in spark.sql(f"SHOW TBLPROPERTIES {table_sql_name()}").collect()}


def table_window(spark):
    """The table's undo window when upkeep set one (its file retention), else None."""
    return as_window(table_properties(spark).get(FILES_KEY, ""))


def set_window(spark, window: dt.timedelta) -> bool:
    """Give the table the window W (file retention W, log retention W + LOG_MARGIN); True when that
    took a commit, False when the table had it already."""
    wanted = {FILES_KEY: as_interval(window), LOG_KEY: as_interval(window + LOG_MARGIN)}
    now = table_properties(spark)
    if all(as_window(now.get(key, "")) == as_window(value) for key, value in wanted.items()):
        return False
    settings = ", ".join(f"'{key}' = '{value}'" for key, value in wanted.items())
    spark.sql(f"ALTER TABLE {table_sql_name()} SET TBLPROPERTIES ({settings})")
    return True


def window_start(spark, window: dt.timedelta, now: dt.datetime) -> tuple:
    """(version, its time): the oldest version committed inside the window, the newest if none was.
    Delta itself refuses to time travel to a version committed longer ago than the table's file
    retention (DELTA_UNSUPPORTED_TIME_TRAVEL_BEYOND_DELETED_FILE_RETENTION_DURATION), VACUUM or not;
    and no VACUUM deletes a file that a version inside the window needs."""
    commits = sorted((row.version, row.timestamp) for row in history_frame(spark).select("version", "timestamp").collect())
    inside = [(version, at) for version, at in commits if naive_utc(at) >= naive_utc(now) - window]
    return inside[0] if inside else commits[-1]


def naive_utc(moment: dt.datetime) -> dt.datetime:
    """A time in UTC without its zone. PySpark gives timestamps back naive, in this process's local time."""
    return moment.astimezone(dt.timezone.utc).replace(tzinfo=None)
