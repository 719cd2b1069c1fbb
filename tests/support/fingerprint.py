"""A table's whole content as one sha256, and its version: what "left exactly as it was" compares."""
import hashlib

from conftest import table_rows, table_version


def content_sha256(spark) -> str:
    """sha256 over every row of orders_daily, sorted: equal only for equal content."""
    return hashlib.sha256(repr(table_rows(spark)).encode()).hexdigest()


def table_state(spark) -> tuple:
    """(content fingerprint, table version)."""
    return content_sha256(spark), table_version(spark)
