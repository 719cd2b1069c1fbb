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
from decimal import Decimal

CENTS = Decimal("0.01")
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
NAMES = ("customer_id", "amount", "ordered_at")
DIGEST_BITS = 64


def file_values(row: dict) -> tuple:
    """(customer_id, amount, micros) of a file's order that check_row accepted (its fields as text)."""
    at = dt.datetime.fromisoformat(row["ordered_at"]).replace(tzinfo=dt.timezone.utc)
    return row["customer_id"], Decimal(row["amount"]).quantize(CENTS), (at - EPOCH) // dt.timedelta(microseconds=1)


def row_hash(order_id, values: tuple) -> int:
    """A row's hash: the first 60 bits of the md5 of its text, as spark_row_hash computes it."""
    text = "|".join(str(value) for value in (order_id, *values) if value is not None)
    return int(hashlib.md5(text.encode("utf-8")).hexdigest()[:15], 16)


def digest(hashes) -> str:
    """The digest of a day's rows from their row_hash (or of sums of them), as 16 hex digits."""
    return f"{sum(hashes) % (1 << DIGEST_BITS):016x}"


def rows_digest(rows) -> str:
    """The digest of rows given as (order_id, values) pairs."""
    return digest(row_hash(order_id, values) for order_id, values in rows)


def spark_row_hash(order_id, customer_id, amount, micros):
    """row_hash as a Spark expression (a BIGINT of 60 bits; spark_hash_sum sums them): an order's columns."""
    from pyspark.sql import functions as F
    text = F.concat_ws("|", order_id.cast("string"), customer_id, amount.cast("decimal(12,2)").cast("string"),
                       micros.cast("string"))
    return F.conv(F.substr(F.md5(text), F.lit(1), F.lit(15)), 16, 10).cast("bigint")


def spark_hash_sum(hashes):
    """The sum of spark_row_hash values (or of such sums) as an aggregate, a DECIMAL(38,0): their high and
    low 32 bits are summed apart as BIGINTs (no overflow below 2^35 rows) and put together once, so no
    row pays for decimal arithmetic."""
    from pyspark.sql import functions as F
    return F.sum(F.shiftright(hashes, 32)).cast("decimal(38,0)") * F.lit(1 << 32) + F.sum(hashes.bitwiseAND(0xFFFFFFFF))


def spark_digest(hashes_sum) -> str:
    """digest() of the sum Spark found (None for no rows)."""
    return digest([int(hashes_sum or 0)])


def table_columns():
    """The table's columns as the checks collect them: order_id and the values, the time as micros (UTC)."""
    from pyspark.sql import functions as F
    return [F.col("order_id"), F.col("customer_id"), F.col("amount"), F.unix_micros("ordered_at").alias("micros")]


def shown_value(name: str, value) -> str:
    if value is None:
        return "null"
    if name == "ordered_at":
        return (EPOCH + dt.timedelta(microseconds=value)).replace(tzinfo=None).isoformat()
    return str(value)


def differences(in_file: tuple, in_table: tuple) -> str:
    """What differs between one order's values in the file and in the table, column by column."""
    return ", ".join(f"{name} {shown_value(name, table)} in the table, {shown_value(name, found)} in the file"
                     for name, found, table in zip(NAMES, in_file, in_table) if found != table)
