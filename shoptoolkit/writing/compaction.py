"""Compaction of a closed month: its small days rewritten together into few files, one commit a month,
their lineage carried along, so that a later rerun of one day still replaces that day only.

    from shoptoolkit.writing.compaction import month_plans, compact_month
    for plan in month_plans(spark, before=dt.date(2026, 11, 1)):
        print(compact_month(spark, plan))

The commit is a replaceWhere of the month's small days whose rows are read from the table inside the
same write, so that they come from the version its transaction reads (its commit records it as
readVersion). On a partitioned table it is Delta's documented way to compact, with dataChange=false;
Delta refuses dataChange=false for a replaceWhere on a column that is not a partition column
(DELTA_REPLACE_WHERE_WITH_FILTER_DATA_CHANGE_UNSET), so on the default layout the commit is a data
change that leaves every row as it was. A load of one of those
days that commits meanwhile makes the compaction lose a write conflict: nothing of it lands, and
retry.py works it out again from the newest version. Its user metadata carries the lineage every
merged day had (day_states.latest_loads), so the calendar, --reprocess and history.py answer as before.
A partitioned table is compacted the same way: each day is a partition, and gets one file.
"""
import datetime as dt
import json
import math
from dataclasses import dataclass

from shoptoolkit.dates import run_dates
from shoptoolkit.storage.project_paths import table_path
from shoptoolkit.table.delta_table import partition_columns
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.truth.day_truth import latest_loads

TARGET_BYTES = 128 * 1024 * 1024  # a compacted file's size at most, about 3 million orders
BIG_DAY_BYTES = 32 * 1024 * 1024  # a day whose files hold this much keeps files of its own
QUOTE = "'"


@dataclass(frozen=True)
class MonthPlan:
    """One month's files now, and what compaction would make of them."""
    month: dt.date          # its first day
    days: tuple             # the small days that share the compacted files, in order
    files: int              # the data files that hold them now
    size: int               # their bytes
    big_days: tuple = ()    # days that keep files of their own
    partitioned: bool = False  # a partition a day: each day gets a file

    @property
    def target_files(self) -> int:
        return len(self.days) if self.partitioned else max(1, math.ceil(self.size / TARGET_BYTES))

    def worth_it(self) -> bool:
        return self.files > self.target_files

    def predicate(self) -> str:
        """The replaceWhere of its small days: the month's range when it has no big day, else the days."""
        if not self.big_days:
            return (f"{PARTITION_COLUMN} >= DATE'{self.month}' AND "
                    f"{PARTITION_COLUMN} <= DATE'{month_end(self.month)}'")
        return f"{PARTITION_COLUMN} IN ({', '.join(f'DATE{QUOTE}{day}{QUOTE}' for day in self.days)})"

    def line(self) -> str:
        big = f"; {len(self.big_days)} big day(s) keep their own files" if self.big_days else ""
        return (f"{self.month:%Y-%m}: {len(self.days)} days in {self.files} files ({self.size:,} bytes) "
                f"-> {self.target_files} file{'s' if self.target_files > 1 else ''}{big}")


def month_end(first: dt.date) -> dt.date:
    return (first.replace(day=28) + dt.timedelta(days=4)).replace(day=1) - dt.timedelta(days=1)


def table_files(spark) -> list:
    """(path, bytes, first day, last day) of each data file of the table's newest version."""
    from pyspark.sql import functions as F
    rows = (spark.read.format("delta").load(str(table_path()))
            .groupBy(F.col("_metadata.file_path").alias("path"), F.col("_metadata.file_size").alias("size"))
            .agg(F.min(PARTITION_COLUMN).alias("first"), F.max(PARTITION_COLUMN).alias("last")).collect())
    return [(row.path, row.size, row.first, row.last) for row in rows]


def month_plans(spark, before: dt.date) -> list:
    """A MonthPlan for each month that ends before `before` and holds rows, oldest first. A file whose
    days run over two months counts in the month of its first day."""
    partitioned = partition_columns(spark) == [PARTITION_COLUMN]
    by_month = {}
    for path, size, first, last in table_files(spark):
        if first is not None and month_end(first.replace(day=1)) < before:
            by_month.setdefault(first.replace(day=1), []).append((path, size, first, last))
    return [plan_of(month, files, partitioned) for month, files in sorted(by_month.items())]


def plan_of(month: dt.date, files: list, partitioned: bool) -> MonthPlan:
    day_bytes = {}
    for _, size, first, last in files:
        for day in run_dates(first, min(last, month_end(month))):
            day_bytes[day] = day_bytes.get(day, 0) + size / ((last - first).days + 1)
    big = tuple(day for day in sorted(day_bytes) if day_bytes[day] >= BIG_DAY_BYTES)
    small = tuple(day for day in sorted(day_bytes) if day not in big)
    shared = [size for _, size, first, last in files if not set(run_dates(first, last)) <= set(big)]
    return MonthPlan(month, small, len(shared), sum(shared), big, partitioned)


def compaction_note(plan: MonthPlan, lineage: dict) -> str:
    """The compaction commit's user metadata: what it did, and the lineage of every merged day."""
    return json.dumps({"upkeep": f"compacted {plan.month:%Y-%m}", "days": [lineage[day] for day in plan.days
                                                                            if day in lineage]}, sort_keys=True)


def month_rows(spark, plan: MonthPlan):
    """The plan's rows, read from the table's newest version, which is the one the write's transaction
    reads: the rows are read inside the write (Delta reads a table that a write reads from at its
    transaction's version)."""
    return spark.read.format("delta").load(str(table_path())).where(plan.predicate())


def compact_month(spark, plan: MonthPlan) -> None:
    """Rewrite the plan's days into plan.target_files files, in one commit with dataChange=false."""
    from pyspark.sql import functions as F
    lineage = latest_loads(spark, plan.days[0], plan.days[-1])
    rows = month_rows(spark, plan)
    rows = rows.coalesce(1) if plan.target_files == 1 else rows.repartitionByRange(plan.target_files,
                                                                                    F.col(PARTITION_COLUMN))
    (rows.sortWithinPartitions(PARTITION_COLUMN, "order_id")
     .write.format("delta").mode("overwrite")
     .option("replaceWhere", plan.predicate())
     .option("dataChange", str(not plan.partitioned).lower())
     .option("userMetadata", compaction_note(plan, lineage))
     .save(str(table_path())))
