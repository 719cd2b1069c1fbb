"""An order's values as the table holds them, whoever reads them: the same in Python and inside Spark,
whatever the session's time zone. What the checks compare beside the order ids.

    from shoptoolkit.row_values import file_values, differences
    values = file_values({"customer_id": "C01", "amount": "4.5", "ordered_at": "2026-09-12T10:00:00"})
    differences(values, ("C01", Decimal("450.00"), values[2]))   # 'amount 450.00 in the table, 4.50 in the file'

An order's values are (customer_id, amount as DECIMAL(12,2), ordered_at as microseconds since the
epoch, UTC): the file's times are UTC, as the till writes them, and are read as such on every path. A
day's rows have a digest, the sum of a hash of each row's text (`id|customer|amount|micros`), which
does not depend on the rows' order: a load records its file's (load_lineage.py), and a day whose rows
still have it holds exactly the rows that load wrote.
"""
import datetime as dt
import hashlib
import json
from decimal import Decimal

from shoptoolkit.table_schema import PARTITION_COLUMN, RESCUED

CENTS = Decimal("0.01")
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
NAMES = ("customer_id", "amount", "ordered_at")
DIGEST_BITS = 64


def file_values(row: dict, types: dict = None) -> tuple:
    """(customer_id, amount, micros, extras) of a file's order that check_row accepted (its fields as text);
    extras: its new columns' values (types: {name: type}) that are not empty, as pairs (extras_of)."""
    at = dt.datetime.fromisoformat(row["ordered_at"]).replace(tzinfo=dt.timezone.utc)
    extras = extras_of((name, typed(row[name], type_)) for name, type_ in (types or {}).items())
    return (row["customer_id"], Decimal(row["amount"]).quantize(CENTS), (at - EPOCH) // dt.timedelta(microseconds=1),
            extras)


def typed(text: str, type_: str):
    """A new column's value (text that check_row accepted) as the table holds it in a column of type_; None
    for an empty field."""
    if text == "":
        return None
    if type_.startswith("DECIMAL"):  # a zero without its sign: Java's BigDecimal, Spark's, has no -0.00
        value = Decimal(text).quantize(Decimal(1).scaleb(-int(type_[:-1].split(",")[1])))
        return value.copy_abs() if value.is_zero() else value
    if type_ in ("INT", "BIGINT"):
        return int(text)
    if type_ == "BOOLEAN":
        return text.lower() == "true"
    return dt.date.fromisoformat(text) if type_ == "DATE" else text


def extras_of(pairs) -> tuple:
    """The (name, value) pairs of an order's columns beyond the till's, in name order, without the nulls,
    the JSON of RESCUED opened into its own pairs: how a file's order and a table's row compare them."""
    found = {}
    for name, value in pairs:
        if name == RESCUED and value is not None:
            found.update({key: text for key, text in json.loads(value).items() if key not in found})
        elif value is not None:
            found[name] = value
    return tuple(sorted(found.items()))


def text_of(value) -> str:
    """A value as Spark casts it to a string (a boolean as true or false, an extras tuple as name=value|...)."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return "|".join(f"{name}={text_of(one)}" for name, one in value)
    return str(value)


def row_hash(order_id, values: tuple) -> int:
    """A row's hash: the first 60 bits of the md5 of its text, as spark_row_hash computes it."""
    text = "|".join(text_of(value) for value in (order_id, *values) if value is not None and value != ())
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:15], 16)


def digest(hashes) -> str:
    """The digest of a day's rows from their row_hash (or of sums of them), as 16 hex digits."""
    return f"{sum(hashes) % (1 << DIGEST_BITS):016x}"


def rows_digest(rows) -> str:
    """The digest of rows given as (order_id, values) pairs."""
    return digest(row_hash(order_id, values) for order_id, values in rows)


def spark_row_hash(order_id, customer_id, amount, micros, extras=None):
    """row_hash as a Spark expression (a BIGINT of 60 bits; spark_hash_sum sums them): an order's columns,
    extras the text of its new columns' values (spark_pairs_text; '' or None for none)."""
    from pyspark.sql import functions as F
    text = F.concat_ws("|", order_id.cast("string"), customer_id, amount.cast("decimal(12,2)").cast("string"),
                       micros.cast("string"), *([] if extras is None else [F.when(extras != "", extras)]))
    return F.conv(F.substr(F.md5(text), F.lit(1), F.lit(15)), 16, 10).cast("bigint")


def spark_orders_hash(frame):
    """spark_row_hash of each row of a frame of orders as the table holds them, its new columns and RESCUED's."""
    from pyspark.sql import functions as F
    return spark_row_hash(F.col("order_id"), F.col("customer_id"), F.col("amount"), F.unix_micros("ordered_at"),
                          spark_extras_text(frame))


def spark_hash_sum(hashes):
    """The sum of spark_row_hash values (or of such sums) as an aggregate, a DECIMAL(38,0): their high and
    low 32 bits are summed apart as BIGINTs (no overflow below 2^35 rows) and put together once, so no
    row pays for decimal arithmetic."""
    from pyspark.sql import functions as F
    return F.sum(F.shiftright(hashes, 32)).cast("decimal(38,0)") * F.lit(1 << 32) + F.sum(hashes.bitwiseAND(0xFFFFFFFF))


def spark_digest(hashes_sum) -> str:
    """digest() of the sum Spark found (None for no rows)."""
    return digest([int(hashes_sum or 0)])


def table_columns(extras=()):
    """The table's columns as the checks collect them: order_id and the values, the time as micros (UTC),
    then the columns extras (beyond the till's: table_values makes them one value)."""
    from pyspark.sql import functions as F
    return [F.col("order_id"), F.col("customer_id"), F.col("amount"), F.unix_micros("ordered_at").alias("micros"),
            *(F.col(name) for name in extras)]


def extra_columns(frame) -> list:
    """The columns of a frame of orders beyond the till's own and the day (a new column, RESCUED)."""
    return [name for name in frame.columns if name not in (*NAMES, "order_id", "ordered_at", PARTITION_COLUMN)]


def spark_extras_text(frame):
    """text_of an order's extras as a Spark expression over frame's extra columns: `name=value|...` in name
    order, nulls left out, RESCUED's JSON opened into its pairs (a column of the name first); '' for none."""
    from pyspark.sql import functions as F
    names = extra_columns(frame)
    return spark_pairs_text({name: F.col(name) for name in names if name != RESCUED},
                            F.col(RESCUED) if RESCUED in names else None)


def spark_pairs_text(values: dict, rescued=None):
    """spark_extras_text of an order's new columns' values ({name: Column}) and its RESCUED JSON (a Column, or
    None): sorted by name, as extras_of sorts them; '' for none."""
    from pyspark.sql import functions as F
    if not values and rescued is None:
        return F.lit("")
    empty = F.create_map().cast("map<string,string>")
    own = F.map_filter(F.create_map(*(part for name, value in values.items()
                                      for part in (F.lit(name), value.cast("string")))).cast("map<string,string>"),
                       lambda key, value: value.isNotNull())
    rescued = empty if rescued is None else F.coalesce(F.from_json(rescued, "map<string,string>"), empty)
    pairs = F.map_concat(own, F.map_filter(rescued, lambda key, value: ~F.array_contains(F.map_keys(own), key)))
    return F.array_join(F.transform(F.array_sort(F.map_entries(pairs)),
                                    lambda one: F.concat(one.key, F.lit("="), one.value)), "|")


def table_values(row, extras=()) -> tuple:
    """An order's values from a row of table_columns(extras) less its order_id, as file_values gives them."""
    customer_id, amount, micros, *more = row
    return customer_id, amount, micros, extras_of(zip(extras, more))


def shown_value(name: str, value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return text_of(value)
    if name == "ordered_at":
        return (EPOCH + dt.timedelta(microseconds=value)).replace(tzinfo=None).isoformat()
    return str(value)


def differences(in_file: tuple, in_table: tuple) -> str:
    """What differs between one order's values in the file and in the table, column by column."""
    found_extras, table_extras = dict(in_file[3]), dict(in_table[3])
    names = [*NAMES, *sorted(set(found_extras) | set(table_extras))]
    in_file = (*in_file[:3], *(found_extras.get(name) for name in names[3:]))
    in_table = (*in_table[:3], *(table_extras.get(name) for name in names[3:]))
    return ", ".join(f"{name} {shown_value(name, table)} in the table, {shown_value(name, found)} in the file"
                     for name, found, table in zip(names, in_file, in_table) if found != table)
