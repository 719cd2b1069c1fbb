"""Python's csv reader on one line, as Spark expressions: what the Spark check (in_spark.py) runs on
every line of a big day's file to find its fields, as csv.reader in its default dialect would.

    from shoptoolkit.till.csv_sql import line_kind
    kind, fields, controls = line_kind(F.col("text"), closes)    # 'blank', 'error', 'open' or 'order', ...

Every anchor is absolute (Java's $ also matches before a final line end, Python's fullmatch does not).
"""
import csv

from shoptoolkit.till.line_rules import CONTROL

# Python's csv in its default dialect, on one line that starts a record: a field is quoted (what follows
# its closing quote up to a comma is kept as it is), runs to the line's end inside its quotes (the
# record goes on on the next line), is unquoted (a quote inside it is kept), or is empty.
QUOTED = r'"(?:[^"]++|"")*+'
FIELD = rf'\G,({QUOTED}"[^,\r]*+|{QUOTED}\z|[^,\r"][^,\r]*+|)'
OPEN = rf"\A{QUOTED}\z"
CRS = r"\A\r*\z"


def without_crs(text):
    """A line less the CRs at its end (a CRLF file's; Spark's CSV reader ends a line at them)."""
    from pyspark.sql import functions as F
    return F.when(text.endswith("\r"), F.regexp_replace(text, r"\r+\z", "")).otherwise(text)


def plain_fields(text):
    """A line without quotes: its fields, and whether csv refuses a CR in it (one not at its end)."""
    from pyspark.sql import functions as F
    kept = without_crs(text)
    return F.split(kept, ",", -1), kept.contains("\r")


def nth_field(text, place: int):
    """The field at place (1 for the first) of a line without quotes, split at its commas."""
    from pyspark.sql import functions as F
    return F.substring_index(F.substring_index(text, ",", place), ",", -1)


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
