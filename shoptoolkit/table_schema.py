"""orders_daily's schema, defined once: its name, its columns and their Spark types, its partition column.

    from shoptoolkit.table_schema import COLUMNS, table_ddl
    spark.createDataFrame([], table_ddl()).printSchema()

A landing file holds COLUMNS (a header names them, in any order); the table holds them and
PARTITION_COLUMN, the day a row belongs to (the day its file is for, whether or not the table is
partitioned by it).
"""
TABLE = "orders_daily"
SPARK_TYPES = {"order_id": "BIGINT", "customer_id": "STRING", "amount": "DECIMAL(12,2)",
               "ordered_at": "TIMESTAMP"}
COLUMNS = tuple(SPARK_TYPES)  # a landing file's columns, in the order make_days writes them
PARTITION_COLUMN = "order_date"
PARTITION_TYPE = "DATE"
# A column beyond these comes from the till's file (till/new_columns.py): added as a column of its own,
# or kept, with the file's other unknown columns, as JSON in RESCUED (Auto Loader's name for it).
RESCUED = "_rescued_data"
# How Spark reads a day file: a header, any error fails the read, and the till's times (no offset) are
# UTC whatever the session's time zone (spark.sql.session.timeZone, which a notebook may change).
CSV_OPTIONS = {"header": "true", "mode": "FAILFAST", "timestampFormat": "yyyy-MM-dd'T'HH:mm:ss", "timeZone": "UTC"}


def columns_ddl(columns=COLUMNS, types=None) -> str:
    """The DDL schema of a file's columns in the order given, e.g. `order_id BIGINT, amount DECIMAL(12,2)`;
    types: {name: type} of its columns beyond SPARK_TYPES."""
    return ", ".join(f"{name} {SPARK_TYPES.get(name) or types[name]}" for name in columns)


def table_ddl() -> str:
    """The DDL schema of the table: the file's columns, then the partition column."""
    return f"{columns_ddl()}, {PARTITION_COLUMN} {PARTITION_TYPE}"
