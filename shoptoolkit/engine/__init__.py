"""The engine: how Spark runs for the toolkit (its JVM, Java and Delta's JARs, the driver's options,
the log store for safe commits, Spark's settings, a Spark Connect server, the pipeline CLI) and how its
errors are told in one line. docs/session.md says why each part is there."""
from shoptoolkit.engine.connect_server import alive, answers, end_group, free_port, is_server, launch
from shoptoolkit.engine.pipeline_port import local_port
from shoptoolkit.engine.pipeline_setup import DATASETS, PREPARED, SPEC, START_FILE, pipeline_home, prepare_run, run_spec
from shoptoolkit.engine.spark_settings import DATABRICKS_ENV
