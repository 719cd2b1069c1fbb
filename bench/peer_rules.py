"""The toolkit's rules of a day's orders (shoptoolkit/till/line_rules.py) as each peer of bench_peers.py
writes them: a pandera schema (its PySpark backend), a Great Expectations 1.x suite, DQX checks. Each peer
gets the day's file as Spark reads it with its header, every value a string (FAILFAST: a line of another
width fails the read), and either refuses it with its own words (Refused) or lets it through.

    checked = PEERS["pandera"](spark, read_strings(spark, [day]), day)   # the frame, or Refused
    checked = PEERS["DQX"](spark, read_strings(spark, days), None)         # many days' files at once

Given many days' files, a peer cannot compare a value with the day in a file's name: the frame then has
one more column, on_day (the file's day, '|', its ordered_at), which a pattern with a back reference
checks. What a peer cannot say, being given rows rather than lines, is in CANNOT.
"""
import functools

from shoptoolkit.table_schema import COLUMNS, PARTITION_COLUMN, PARTITION_TYPE, SPARK_TYPES
from shoptoolkit.storage.project_paths import day_file
from shoptoolkit.till.day_frames import DAY_FILE_NAME

# Java patterns for rlike, one a column; amount's says both "a number like 19.99" and "not negative".
# The toolkit's \d takes any Unicode decimal digit; these take ASCII digits, as a till writes them.
CONTROL = r"\x00-\x1f\x7f-\x9f"


DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}"


def patterns(day) -> dict:
    """{column: its pattern} for the file of day, or (day None) for many days' files with on_day."""
    time = "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]$"
    found = {"order_id": r"^[0-9]{1,18}$", "amount": r"^[0-9]{1,10}(\.[0-9]{1,2})?$",
             "customer_id": rf"^(?=.*\S)[^{CONTROL}]+$", "ordered_at": f"^{day or DATE}{time}"}
    return found if day else {**found, "on_day": rf"^({DATE})\|\1T"}


def frame_columns(day) -> list:
    """The columns read_strings gives, in their order: the till's, and on_day for many days."""
    return [*COLUMNS, *([] if day else ["on_day"])]


CANNOT = ("a line number in its words; a header line repeated inside the file; a quoted field that runs on "
          "past its line (Spark's reader parses or fails it first); an id loaded on another day (a join "
          "of the user's own)")


class Refused(Exception):
    """A peer's refusal of a day, in the peer's words."""


def read_strings(spark, days: list):
    """The days' files with their header, every value a string, any line of another width an error; with
    on_day when they are several."""
    from pyspark.sql import functions as F
    frame = spark.read.options(header=True, mode="FAILFAST").csv([str(day_file(day)) for day in days])
    if len(days) == 1:
        return frame
    file_day = F.regexp_extract("_metadata.file_name", DAY_FILE_NAME, 1)
    return frame.withColumn("on_day", F.concat(file_day, F.lit("|"), "ordered_at"))  # null when ordered_at is


def typed(frame, day):
    """The checked strings as the table's columns (an ANSI cast, so a bad value still fails the write),
    each row's day the day given, or on_day's."""
    from pyspark.sql import functions as F
    row_day = F.lit(day) if day else F.substring("on_day", 1, 10).cast(PARTITION_TYPE)
    return frame.select(*[F.col(name).cast(SPARK_TYPES[name]) for name in COLUMNS], row_day.alias(PARTITION_COLUMN))


def pandera_checked(spark, frame, day):
    import pandera.pyspark as pa
    from pyspark.sql import types as T
    schema = pa.DataFrameSchema({name: pa.Column(T.StringType(), pa.Check.str_matches(pattern), nullable=False)
                                 for name, pattern in patterns(day).items()}, strict=True, unique="order_id")
    errors = schema.validate(frame).pandera.errors
    if errors:
        first = next(iter(next(iter(errors.values())).values()))[0]
        raise Refused(f"{first['column']}: {first['error']}" if first.get("column") else first["error"])
    return frame


@functools.cache
def gx_definition():
    """Great Expectations' context (ephemeral, in memory) and a batch definition of a whole Spark frame. Its
    Spark data source persists each frame it checks (GX's default), so the write reads the cached rows."""
    import great_expectations as gx
    from great_expectations.data_context.types.base import ProgressBarsConfig
    context = gx.get_context(mode="ephemeral")
    context.variables.progress_bars = ProgressBarsConfig(globally=False)
    asset = context.data_sources.add_spark(name="spark").add_dataframe_asset(name="orders")
    return context, asset.add_batch_definition_whole_dataframe("day")


def gx_checked(spark, frame, day):
    import great_expectations as gx
    from great_expectations import expectations as E
    context, definition = gx_definition()
    expectations = [E.ExpectTableColumnsToMatchSet(column_set=frame_columns(day), exact_match=True),
                    E.ExpectColumnValuesToBeUnique(column="order_id")]
    for name, pattern in patterns(day).items():
        expectations += [E.ExpectColumnValuesToNotBeNull(column=name),
                         E.ExpectColumnValuesToMatchRegex(column=name, regex=pattern)]
    suite = context.suites.add_or_update(gx.ExpectationSuite(name="orders", expectations=expectations))
    found = definition.get_batch(batch_parameters={"dataframe": frame}).validate(suite)
    failed = [result for result in found.results if not result.success]
    if failed:
        config, result = failed[0].expectation_config, failed[0].result
        raise Refused(f"{config.type} {config.kwargs.get('column', '')}: {result.get('unexpected_count')} "
                      f"unexpected, e.g. {result.get('partial_unexpected_list', [])[:1]}")
    return frame


@functools.cache
def dqx_engine(spark):
    """DQX's engine. It asks for a Databricks workspace client even for a local frame: a stand-in (a mock)
    here, which no check calls."""
    from unittest.mock import MagicMock
    from databricks.labs.dqx.engine import DQEngine
    from databricks.sdk import WorkspaceClient
    return DQEngine(MagicMock(spec=WorkspaceClient), spark)


def dqx_checked(spark, frame, day):
    from databricks.labs.dqx import check_funcs as C
    from databricks.labs.dqx.rule import DQDatasetRule, DQRowRule
    from pyspark.sql import functions as F
    strings = ", ".join(f"{name} STRING" for name in frame_columns(day))
    rules = [DQDatasetRule(check_func=C.has_valid_schema, check_func_kwargs={"expected_schema": strings,
                                                                            "strict": True}),
             DQDatasetRule(check_func=C.is_unique, columns=["order_id"])]
    for name, pattern in patterns(day).items():
        rules += [DQRowRule(check_func=C.is_not_null, column=name),
                  DQRowRule(check_func=C.regex_match, column=name, check_func_kwargs={"regex": pattern})]
    checked = dqx_engine(spark).apply_checks(frame, rules)
    bad = checked.where(F.col("_errors").isNotNull()).select("_errors").first()
    if bad:
        raise Refused("; ".join(error["message"] for error in bad["_errors"]))
    return frame


PEERS = {"pandera": pandera_checked, "Great Expectations": gx_checked, "DQX": dqx_checked}
