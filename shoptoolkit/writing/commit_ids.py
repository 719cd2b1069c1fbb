"""The order-id checks of a commit of several days (commit_days.py): ids another day of the table holds,
ids in the files of two of the commit's days, and which days a run one after another would refuse.

    elsewhere, shared = stored_elsewhere(spark, passed), in_several_files(spark, passed)
    loading, refused = without_clashes(spark, passed, elsewhere, shared)

passed: [(run date, day, DayFile)]. A file checked in Python brings its ids; one checked in Spark does
not, and its ids are joined in Spark, so no set of every id comes to Python.
"""
from shoptoolkit.table.delta_table import IDS_IN_QUERY, existing_table
from shoptoolkit.table_schema import PARTITION_COLUMN
from shoptoolkit.till.day_frames import read_days
from shoptoolkit.till.in_spark import line_of
from shoptoolkit.till.line_rules import bad_line


def files_of(spark, passed):
    """read_days' frame of the files of [(run date, day, DayFile)]."""
    return read_days(spark, [(day, found) for _, day, found in passed])


def id_range(passed) -> tuple:
    """(how many ids, the lowest, the highest) of the files' order ids."""
    found = [found for _, _, found in passed if found.count]
    if not found:
        return 0, None, None
    return sum(one.count for one in found), min(one.lowest for one in found), max(one.highest for one in found)


def few_ids(passed) -> bool:
    """Whether the files' ids are in Python (checked there) and few enough to be named in a query."""
    return all(found.order_ids is not None for _, _, found in passed) and id_range(passed)[0] <= IDS_IN_QUERY


def overlapping(passed) -> list:
    """The entries of passed whose file's id range (lowest to highest) meets another file's."""
    spans = sorted((found.lowest, found.highest, place) for place, (_, _, found) in enumerate(passed) if found.count)
    meeting, reach, holder = set(), None, None  # reach: the highest id of the ranges so far, holder its file
    for lowest, highest, place in spans:
        if reach is not None and lowest <= reach:
            meeting |= {place, holder}
        if reach is None or highest > reach:
            reach, holder = highest, place
    return [passed[place] for place in sorted(meeting)]


def ranges_meet(stored, passed) -> bool:
    """Whether the id range of some stored day (of the rows of stored, with stored_on) meets the id range
    of a file of another day: one small query, its rows a day each, instead of joining every id."""
    from pyspark.sql import functions as F
    files = [(day, found.lowest, found.highest) for _, day, found in passed if found.count]
    spans = stored.groupBy("stored_on").agg(F.min("order_id"), F.max("order_id")).collect()
    return any(lowest <= high and low <= highest for on, low, high in spans
               for day, lowest, highest in files if day != on)


def stored_elsewhere(spark, passed, table=None) -> dict:
    """{order id: {days}}: the days the table (orders_daily now, or as at a version) holds ids of these
    files on (at least every day other than the id's file's own).

    As in load_day, the filter on the lowest and highest id lets Delta skip every stored file whose
    ids cannot overlap; up to IDS_IN_QUERY ids are named in the query, more are joined with the files."""
    count, lowest, highest = id_range(passed)
    if not count:
        return {}
    table = existing_table(spark) if table is None else table
    if table is None:
        return {}
    from pyspark.sql import functions as F
    stored = (table.where(F.col("order_id").between(lowest, highest))
              .select("order_id", F.col(PARTITION_COLUMN).alias("stored_on")))
    if few_ids(passed):
        stored = stored.where(F.col("order_id").isin([i for _, _, found in passed for i in found.order_ids]))
    elif not ranges_meet(stored, passed):  # no stored day's ids can be another file's: nothing to join
        return {}
    else:
        stored = (stored.join(files_of(spark, passed).select("order_id", PARTITION_COLUMN), "order_id")
                  .where(F.col("stored_on") != F.col(PARTITION_COLUMN)).limit(100_000))
    found = {}
    for row in stored.collect():
        found.setdefault(row.order_id, set()).add(row.stored_on)
    return found


def in_several_files(spark, passed) -> set:
    """The ids that more than one of the files holds (a file holds an id once: read_day_file's check);
    counted in Python for a few ids, in Spark for many (no set of every id in Python)."""
    if few_ids(passed):
        seen, twice = set(), set()
        for _, _, found in passed:
            twice.update(seen.intersection(found.order_ids))
            seen.update(found.order_ids)
        return twice
    meeting = overlapping(passed)  # only files whose id ranges meet can share an id
    if not meeting:
        return set()
    several = files_of(spark, meeting).groupBy("order_id").count().where("count > 1")
    return {row.order_id for row in several.limit(100_000).collect()}


def ids_held(spark, passed, wanted: set) -> dict:
    """{day: ids of its file that may clash}: every id of a file checked in Python; of a file checked in
    Spark, those of wanted it holds (a Spark query, only when some id is wanted)."""
    held = {day: found.order_ids for _, day, found in passed if found.order_ids is not None}
    in_spark = [entry for entry in passed if entry[2].order_ids is None]
    if in_spark and wanted:
        ids = spark.createDataFrame([(order_id,) for order_id in wanted], "order_id BIGINT")
        for row in files_of(spark, in_spark).join(ids, "order_id", "left_semi").collect():
            held.setdefault(row[PARTITION_COLUMN], []).append(row.order_id)
    return held


def without_clashes(spark, passed, elsewhere: dict, shared: set) -> tuple:
    """(the days to commit, {run date: why not}), in run order, as runs one after another would find
    them: a day is refused when an id of its file is stored on another day that this commit does not
    replace before it, or is in the file of a day taken before it in this commit (shared: such ids)."""
    taken, taken_days, refused = {}, set(), {}
    held = ids_held(spark, passed, set(elsewhere) | shared)
    for run_date, day, found in passed:
        ids = held.get(day, [])
        clash = sorted({(order_id, on) for order_id in ids
                        for on in elsewhere.get(order_id, ()) if on != day and on not in taken_days}
                       | {(order_id, taken[order_id]) for order_id in ids if order_id in taken})
        if clash:
            listed = ", ".join(f"{order_id} (on {on})" for order_id, on in clash[:5])
            refused[run_date] = str(bad_line(found.path, line_of(spark, found, clash[0][0]),
                                             f"order_id already stored on another day: {listed}"))
            continue
        taken.update((order_id, day) for order_id in shared.intersection(ids))
        taken_days.add(day)
    return [entry for entry in passed if entry[0] not in refused], refused


def clashes_before(spark, loading, table) -> dict:
    """{day: the line that refuses its file} of the days of loading whose ids table holds on a day this
    commit does not replace (late_clash.py: table is orders_daily as it stood just before the commit)."""
    days = {day for _, day, _ in loading}
    elsewhere = {order_id: on - days for order_id, on in stored_elsewhere(spark, loading, table).items()}
    refused = without_clashes(spark, loading, {order_id: on for order_id, on in elsewhere.items() if on}, set())[1]
    return {day: refused[run_date] for run_date, day, _ in loading if run_date in refused}
