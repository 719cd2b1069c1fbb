"""The rules of a line (line_rules.RULES) as Spark expressions: what the Spark check (in_spark.py) runs on
every order of a big day's file, with the fields csv_sql.py finds, and a till's common line in one pattern.

    from shoptoolkit.till.rules_sql import refused_order
    refused = refused_order(fields, controls, places, day)      # a Column: whether check_row refuses it

They say only whether a line is refused; its words come from line_rules' own functions, run on
that one line. So that the two cannot drift, the patterns are line_rules', with Python's \\d (any
Unicode decimal digit) and str.strip's white space written out for Java's regular expressions, and
every anchor absolute (Java's $ also matches before a final line end, Python's fullmatch does not).
"""
import functools
import sys

from shoptoolkit.row_values import spark_pairs_text, spark_row_hash
from shoptoolkit.table_schema import COLUMNS
from shoptoolkit.till.csv_sql import nth_field, without_crs
from shoptoolkit.till.line_rules import RULES

# The time of day fromisoformat accepts (ASCII digits only), after the file's day.
TIME = r"\AT(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\z"
# A till's common line, which check_row accepts, each column in a form narrower than its rule: ASCII, no
# quote, no control character, a customer_id not only spaces, fields far under csv's size limit. A line
# of this form (and its day) is accepted by one pattern; any other line is checked by every rule.
COMMON = {"order_id": "[0-9]{1,18}", "amount": r"[0-9]{1,10}(?:\.[0-9]{1,2})?",
          "customer_id": r"\x20{0,64}[\x21\x23-\x2b\x2d-\x7e][\x20\x21\x23-\x2b\x2d-\x7e]{0,1000}",
          "ordered_at": "[0-9]{4}-[0-9]{2}-[0-9]{2}" + TIME[2:-2]}


@functools.cache
def python_class(test) -> str:
    """The characters for which test holds, as a Java character class. str.isdecimal is what Python's re
    matches with \\d (and int() reads), str.isspace what it matches with \\s (and str.strip takes off)."""
    found = {code for code in range(sys.maxunicode + 1) if test(chr(code))}
    starts = sorted(code for code in found if code - 1 not in found)
    ends = sorted(code for code in found if code + 1 not in found)
    return "[" + "".join(f"\\x{{{start:x}}}-\\x{{{end:x}}}" for start, end in zip(starts, ends)) + "]"


def java(pattern, digit: str = "") -> str:
    """A in_python pattern for Spark's rlike, matching as Python's fullmatch does; with digit, \\d
    stands for it instead of Python's decimal digits."""
    digit = digit or python_class(str.isdecimal)
    return rf"\A(?:{pattern.pattern.replace(chr(92) + 'd', digit)})\z"


def fullmatch(value, pattern):
    """value fully matches a in_python pattern, as Python's re.fullmatch: first tried with ASCII
    digits only (fast, and enough for a till's files), then with all of Python's decimal digits."""
    from pyspark.sql import functions as F
    return F.coalesce(value.rlike(java(pattern, "[0-9]"))
                      | (value.rlike(r"[^\x00-\x7f]") & value.rlike(java(pattern))), F.lit(False))


def common_order(text, columns: list, day):
    """Whether a line (text, without its LF) is a common one: COMMON's forms in the header's order (columns),
    perhaps a CR at its end, its ordered_at on day (the file's, as YYYY-MM-DD). A file with a new column
    (new_columns.py) has none: each of its lines goes through every rule."""
    from pyspark.sql import functions as F
    if any(name not in COMMON for name in columns):
        return F.lit(False)
    pattern = r"\A" + ",".join(COMMON[name] for name in columns) + r"\r?\z"
    on_day = F.substr(nth_field(text, columns.index("ordered_at") + 1), F.lit(1), F.lit(10)) == day
    return F.coalesce(text.rlike(pattern) & on_day, F.lit(False))


def common_id(text, columns: list):
    """The order id of a common line (common_order)."""
    return nth_field(without_crs(text), columns.index("order_id") + 1).cast("bigint")


def common_test(columns: list, found=None) -> tuple:
    """(whether a line is a common one, its id): common_order's and common_id's, or (found, java_common_line's
    struct of the line) found's."""
    from pyspark.sql import functions as F
    if found is None:
        return common_order(F.col("text"), columns, F.col("day")), common_id(F.col("text"), columns)
    return F.col("found").isNotNull(), F.col("found.order_id")


def refused_order(fields, controls, places: dict, day, rules=RULES):
    """Whether check_row refuses the order in fields (a record): its width (a place a column), a control
    character (controls: line_kind's), then every rule of rules (line_rules.RULES and a new column's
    rules of type: line_rules.rules_for; day: the file's, as YYYY-MM-DD)."""
    from pyspark.sql import functions as F
    refused = (F.size(fields) != len(places)) | controls
    for rule in rules:
        refused = refused | ~SPARK_PASSES[rule.kind](F.try_element_at(fields, places[rule.column]), rule, day)
    return refused


def passes_blank(value, rule, day):
    from pyspark.sql import functions as F
    return ~F.coalesce(value.rlike(rf"\A{python_class(str.isspace)}*\z"), F.lit(False))


def passes_on_day(value, rule, day):
    """A time of the file's day: its date part is the day (so a real date) and its time TIME's."""
    from pyspark.sql import functions as F
    return F.coalesce((F.substr(value, F.lit(1), F.lit(10)) == day) & F.substr(value, F.lit(11)).rlike(TIME),
                      F.lit(False))


def passes_date(value, rule, day):
    """Empty, or a real date written YYYY-MM-DD."""
    from pyspark.sql import functions as F
    real = F.try_to_timestamp(value, F.lit("yyyy-MM-dd")).isNotNull() & value.rlike(java(rule.pattern))
    return F.coalesce((value == "") | real, F.lit(False))


# line_rules.PASSES inside Spark, kind by kind: whether a value (a column, null past a short line's end)
# passes a rule (its pattern with Python's meaning, via fullmatch), on the file's day.
SPARK_PASSES = {
    "matches": lambda value, rule, day: fullmatch(value, rule.pattern),
    "not negative": lambda value, rule, day: ~value.startswith("-"),
    "not blank": passes_blank,
    "a time on the day": passes_on_day,
    "a date": passes_date,
}


@functools.cache
def other_digits() -> tuple:
    """(Python's decimal digits outside ASCII, their values as ASCII digits): what int() reads."""
    digits = [chr(code) for code in range(128, sys.maxunicode + 1) if chr(code).isdecimal()]
    return "".join(digits), "".join(str(int(digit)) for digit in digits)


def order_id(fields, places: dict):
    """The order id of a record that check_row accepts, as int() reads it (any decimal digits)."""
    from pyspark.sql import functions as F
    digits = F.try_element_at(fields, places["order_id"])
    return F.when(digits.rlike(r"\A[0-9]+\z"), digits).otherwise(F.translate(digits, *other_digits())).cast("bigint")


def line_values(found_id, columns: list, types: dict = None, found=None) -> dict:
    """An accepted line's order as the table holds it, {column: value}: its fields (a common line's split at
    its commas), its amount as DECIMAL(12,2), its time read as UTC (an explicit Z, whatever the session's
    zone: the rules let only YYYY-MM-DDTHH:MM:SS through, which the cast reads); a value Spark cannot read
    so (digits outside ASCII) is null. types: {name: type} of the new columns given with theirs (typed_value).
    found: a common line's values already typed (java_common_line's struct), taken instead of its fields;
    the fields then are a rare line's alone (with a common line's split left beside them, the one job was
    slower than the pattern's way: docs/benchmarks.md)."""
    from pyspark.sql import functions as F
    fields = (F.col("fields") if found is not None
              else F.when(F.col("common"), F.split(without_crs(F.col("text")), ",", -1)).otherwise(F.col("fields")))

    def value(name):
        return F.element_at(fields, columns.index(name) + 1)
    values = {"order_id": found_id, "customer_id": value("customer_id"),
              "amount": value("amount").try_cast("decimal(12,2)"),
              "ordered_at": F.concat(value("ordered_at"), F.lit("Z")).try_cast("timestamp"),
              **{name: typed_value(value(name), kind) for name, kind in (types or {}).items()}}
    if found is not None:
        typed = {"customer_id": found.customer_id, "amount": found.amount,
                 "ordered_at": F.timestamp_micros(found.micros)}
        values.update({name: F.when(F.col("common"), value).otherwise(values[name]) for name, value in typed.items()})
    return values


def java_common_line(spark, columns: list):
    """CommonLine.java's struct of a line (from its raw bytes and day): common_order, common_id and
    line_values' values in one pass, null for a line that is not a common one; registered in spark's
    session. None where it does not apply: columns not the till's own in its order (a file with a new column,
    or another order), or a JAR of the toolkit built before CommonLine.java; common_order's way then."""
    from py4j.java_gateway import JavaClass
    from pyspark.sql import functions as F
    found = spark._jvm.shoptoolkit.CommonLine
    if tuple(columns) != COLUMNS or not isinstance(found, JavaClass):
        return None
    found.register(spark._jsparkSession)
    return F.call_function("shop_common_line", F.col("raw"), F.col("day"))


def typed_value(text, kind: str):
    """A new column's field (text its rule accepts) as the table holds it in a column of kind, null when
    empty: row_values.typed inside Spark."""
    from pyspark.sql import functions as F
    return F.when(text != "", text if kind == "STRING" else text.try_cast(kind))


def line_hash(found_id, columns: list, types: dict = None):
    """row_values' hash of an accepted line's order (line_values), its new columns (types) with it."""
    from pyspark.sql import functions as F
    values = line_values(found_id, columns, types)
    return spark_row_hash(found_id, values["customer_id"], values["amount"], F.unix_micros(values["ordered_at"]),
                          spark_pairs_text({name: values[name] for name in types or {}}))
