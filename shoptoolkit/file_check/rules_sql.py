"""Python's csv reader and in_python's checks of a line, as Spark expressions: what the Spark check
(in_spark.py) runs on every line of a big day's file.

    from shoptoolkit.file_check.rules_sql import line_kind, refused_order
    kind, fields, controls = line_kind(F.col("text"), closes)    # 'blank', 'error', 'open' or 'order', ...

They say only whether a line is refused; its words come from in_python's own functions, run on
that one line. So that the two cannot drift, the patterns are in_python's, with Python's \\d (any
Unicode decimal digit) and str.strip's white space written out for Java's regular expressions, and
every anchor absolute (Java's $ also matches before a final line end, Python's fullmatch does not).
"""
import csv
import functools
import sys

from shoptoolkit.file_check.in_python import AMOUNT, CONTROL, ORDER_ID
from shoptoolkit.row_values import spark_row_hash
from shoptoolkit.table_schema import COLUMNS

# Python's csv in its default dialect, on one line that starts a record: a field is quoted (what follows
# its closing quote up to a comma is kept as it is), runs to the line's end inside its quotes (the
# record goes on on the next line), is unquoted (a quote inside it is kept), or is empty.
QUOTED = r'"(?:[^"]++|"")*+'
FIELD = rf'\G,({QUOTED}"[^,\r]*+|{QUOTED}\z|[^,\r"][^,\r]*+|)'
OPEN = rf"\A{QUOTED}\z"
CRS = r"\A\r*\z"
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


def without_crs(text):
    """A line less the CRs at its end (a CRLF file's; Spark's CSV reader ends a line at them)."""
    from pyspark.sql import functions as F
    return F.when(text.endswith("\r"), F.regexp_replace(text, r"\r+\z", "")).otherwise(text)


def plain_fields(text):
    """A line without quotes: its fields, and whether csv refuses a CR in it (one not at its end)."""
    from pyspark.sql import functions as F
    kept = without_crs(text)
    return F.split(kept, ",", -1), kept.contains("\r")


def common_order(text, columns: list, day):
    """Whether a line (text, without its LF) is a common one: COMMON's forms in the header's order (columns),
    perhaps a CR at its end, its ordered_at on day (the file's, as YYYY-MM-DD)."""
    from pyspark.sql import functions as F
    pattern = r"\A" + ",".join(COMMON[name] for name in columns) + r"\r?\z"
    on_day = F.substr(nth_field(text, columns.index("ordered_at") + 1), F.lit(1), F.lit(10)) == day
    return F.coalesce(text.rlike(pattern) & on_day, F.lit(False))


def nth_field(text, place: int):
    """The field at place (1 for the first) of a line without quotes, split at its commas."""
    from pyspark.sql import functions as F
    return F.substring_index(F.substring_index(text, ",", place), ",", -1)


def common_id(text, columns: list):
    """The order id of a common line (common_order)."""
    return nth_field(without_crs(text), columns.index("order_id") + 1).cast("bigint")


def quoted_fields(text):
    """A line with a quote: its fields (an open field as far as the line goes), whether its last field
    is still open at its end, and whether csv refuses a CR in it (one outside quotes, not at its end)."""
    from pyspark.sql import functions as F
    tokens = F.regexp_extract_all(F.concat(F.lit(","), text), F.lit(FIELD), 1)
    read = F.aggregate(tokens, F.lit(0), lambda chars, token: chars + 1 + F.char_length(token))
    rest = F.substr(text, read)  # what the fields leave of the line: nothing, or CRs, else csv refuses it
    is_open = F.element_at(tokens, -1).rlike(OPEN) & (rest == "")
    return F.transform(tokens, unquoted), is_open, ~is_open & ~rest.rlike(CRS)


def unquoted(token):
    """A field's value as csv gives it: quotes taken off and doubled ones made single."""
    from pyspark.sql import functions as F
    inside = F.regexp_extract(token, rf"\A({QUOTED})", 1)
    return (F.when(~token.startswith('"'), token)
            .when(token.rlike(OPEN), F.regexp_replace(F.substr(token, F.lit(2)), '""', '"'))
            .otherwise(F.concat(F.regexp_replace(F.substr(inside, F.lit(2)), '""', '"'),
                                F.substr(token, F.char_length(inside) + 2))))


def line_kind(text, closes):
    """(kind, fields, controls) of a line (text: without its LF) as csv reads it when a record starts
    there. kind: 'blank' (no fields), 'error' (csv refuses it), 'open' (a quoted field goes on past its
    end) or 'order' (a record); controls: a field holds a control character. closes: the file ends there
    without a line end, so an open field ends with it. The common line, without quotes or CRs, costs
    no more than a split."""
    from pyspark.sql import functions as F
    plain, plain_cr = plain_fields(text)
    quoted, is_open, quoted_cr = quoted_fields(text)
    has_quote = text.contains('"')
    fields = F.when(has_quote, quoted).otherwise(plain)
    too_long = ((F.char_length(text) > csv.field_size_limit())
                & F.exists(fields, lambda value: F.char_length(value) > csv.field_size_limit()))
    kind = (F.when((text == "") | (text.startswith("\r") & text.rlike(CRS)), "blank")
            .when(text.startswith("\r"), "error")  # csv's start of a record: CRs, then only line ends
            .when(has_quote & is_open & ~closes, "open")
            .when(F.when(has_quote, quoted_cr).otherwise(plain_cr) | too_long, "error")
            .otherwise("order"))
    # Without quotes, an order's fields are its text less the CRs at its end (a CR elsewhere is an error).
    controls = F.when(has_quote, F.exists(fields, lambda field: field.rlike(CONTROL.pattern))).otherwise(
        text.rlike(r"[\x00-\x0c\x0e-\x1f\x7f-\x9f]"))  # CONTROL but CR (a CR at the end is no field's)
    return kind, fields, controls


def refused_order(fields, controls, places: dict, day):
    """Whether check_row refuses the order in fields (a record): its width, a control character (controls:
    line_kind's), the form of each column, the day of ordered_at (day: the file's, as YYYY-MM-DD)."""
    from pyspark.sql import functions as F

    def value(column):
        return F.try_element_at(fields, places[column])

    ordered_at, space = value("ordered_at"), python_class(str.isspace)
    on_day = F.coalesce((F.substr(ordered_at, F.lit(1), F.lit(10)) == day)
                        & F.substr(ordered_at, F.lit(11)).rlike(TIME), F.lit(False))
    return ((F.size(fields) != len(COLUMNS))
            | controls
            | ~fullmatch(value("order_id"), ORDER_ID)
            | ~fullmatch(value("amount"), AMOUNT) | value("amount").startswith("-")
            | F.coalesce(value("customer_id").rlike(rf"\A{space}*\z"), F.lit(False))
            | ~on_day)


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


def line_values(found_id, columns: list) -> dict:
    """An accepted line's order as the table holds it, {column: value}: its fields (a common line's split at
    its commas), its amount as DECIMAL(12,2), its time read as UTC (an explicit Z, whatever the session's
    zone: the rules let only YYYY-MM-DDTHH:MM:SS through, which the cast reads); a value Spark cannot read
    so (digits outside ASCII) is null."""
    from pyspark.sql import functions as F
    fields = F.when(F.col("common"), F.split(without_crs(F.col("text")), ",", -1)).otherwise(F.col("fields"))

    def value(name):
        return F.element_at(fields, columns.index(name) + 1)
    return {"order_id": found_id, "customer_id": value("customer_id"),
            "amount": value("amount").try_cast("decimal(12,2)"),
            "ordered_at": F.concat(value("ordered_at"), F.lit("Z")).try_cast("timestamp")}


def line_hash(found_id, columns: list):
    """row_values' hash of an accepted line's order (line_values)."""
    from pyspark.sql import functions as F
    values = line_values(found_id, columns)
    return spark_row_hash(found_id, values["customer_id"], values["amount"], F.unix_micros(values["ordered_at"]))
