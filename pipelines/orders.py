"""The shop's orders as a Spark Declarative Pipeline: every order from the till's files, and the orders per day.

    python run_pipeline.py          # spark-pipelines imports this file (pipelines/spark-pipeline.yml)

  orders_raw      streaming table: the orders of landing/orders/*.csv, read with the toolkit's explicit
                  schema, each row tagged with its file, its day, and which load read it and when.
                  A streaming file source reads a file once: a row appended later to a file it has
                  read is not seen until a full refresh or a windowed reprocess reads the file again.
  orders_by_day   materialized view: order_date, orders (count), amount (sum), each day taken from
                  its newest load in orders_raw; recomputed whole on every run that selects it.

A windowed reprocess (spark.shop.window.first/last, set for one run by `python run_pipeline.py --window FIRST
LAST`) adds a flow into orders_raw that reads that window's files again. orders_by_day then takes the
window's days from that newer load and every other day from the load it had, so days outside the window
keep their rows. The flow's name carries the window and spark.shop.window.token, a hash of the window's files:
the same window with unchanged files is the same flow, whose checkpoint has read them, so it adds nothing.

Unlike the toolkit's scripts, this file does its work when it is imported: spark-pipelines imports it with
`spark` already set (its Spark Connect session), and each decorator registers a dataset as the import
runs. The settings are read once, here at the top, with spark.conf.get from the spec's configuration
map: a query function itself may not trigger analysis, and every flow sees the same settings.
"""
from pyspark import pipelines as dp
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

# The toolkit's own modules: run_pipeline.py puts the toolkit's folder on PYTHONPATH.
from shoptoolkit.dates import run_dates
from shoptoolkit.table_schema import COLUMNS, CSV_OPTIONS as TOOLKIT_CSV, PARTITION_COLUMN, columns_ddl

spark: SparkSession  # set by spark-pipelines before this file runs (Spark 4.2)

RAW = "orders_raw"
BY_DAY = "orders_by_day"
DAY_OF_FILE = r"(\d{4}-\d{2}-\d{2})\.csv$"
# enforceSchema=false: the header must name the schema's columns, so a changed till format fails the
# flow instead of loading amounts into the wrong column (the scripts refuse such a file too).
CSV_OPTIONS = {**TOOLKIT_CSV, "enforceSchema": "false"}


def setting(key: str, default: str = "") -> str:
    """A value of the spec's configuration map, as this pipeline's Spark session sees it."""
    return spark.conf.get(key, default) or default


def window_days(first: str, last: str) -> list:
    """The days of the window as ISO strings, [] when no window is set."""
    if not first or not last:
        return []
    return [str(day) for day in run_dates(first, last)]


def window_glob(landing: str, days: list) -> str:
    """One Hadoop glob for the window's files: landing/{2026-09-10,2026-09-11}.csv."""
    names = days[0] if len(days) == 1 else "{" + ",".join(days) + "}"
    return f"{landing}/{names}.csv"


def reload_flow_name(days: list, token: str) -> str:
    """The window's flow: one name, so one checkpoint, per window and content of its files."""
    return f"reload_{days[0]}_{days[-1]}_{token}".replace("-", "")


def orders_stream(pattern: str, load: str):
    """The orders of the files matching pattern, as a stream read with the toolkit's schema, each row
    tagged with its file, the day of its file, the load that read it and when that load ran."""
    file_name = F.col("_metadata.file_name")
    return (spark.readStream
            .schema(columns_ddl())
            .options(**CSV_OPTIONS)
            .csv(pattern)
            .select(*COLUMNS,
                    F.to_date(F.regexp_extract(file_name, DAY_OF_FILE, 1)).alias(PARTITION_COLUMN),
                    file_name.alias("source_file"),
                    F.lit(load).alias("loaded_by"),
                    F.current_timestamp().alias("loaded_at")))


LANDING = setting("spark.shop.landing")
WINDOW = window_days(setting("spark.shop.window.first"), setting("spark.shop.window.last"))
WINDOW_TOKEN = setting("spark.shop.window.token", "0")
RESET_ALLOWED = setting("spark.shop.raw.reset_allowed", "true")


@dp.table(name=RAW, comment="Every order of the till's files, tagged with its file, day and load",
          table_properties={"pipelines.reset.allowed": RESET_ALLOWED})
def orders_raw():
    return orders_stream(f"{LANDING}/*.csv", RAW)


if WINDOW:
    RELOAD = reload_flow_name(WINDOW, WINDOW_TOKEN)

    @dp.append_flow(target=RAW, name=RELOAD)
    def reload_window():
        return orders_stream(window_glob(LANDING, WINDOW), RELOAD)


@dp.materialized_view(name=BY_DAY, comment="Orders and amount per day, each day from its newest load")
def orders_by_day():
    # A day's figures from each load that read its file, then the newest of them: the later loaded_at,
    # the load's name breaking a tie. (Two aggregations: a window function here hides orders_raw from
    # the pipeline's graph, and the view would then run beside orders_raw instead of after it.)
    per_load = (spark.read.table(RAW)
                .groupBy(PARTITION_COLUMN, "loaded_at", "loaded_by")
                .agg(F.count("*").alias("orders"), F.sum("amount").alias("amount")))
    newest = F.max_by(F.struct("orders", "amount"), F.struct("loaded_at", "loaded_by"))
    return (per_load.groupBy(PARTITION_COLUMN).agg(newest.alias("newest"))
            .select(PARTITION_COLUMN, "newest.orders", "newest.amount"))
