"""What a run of the shop's pipeline (pipelines/) needs before spark-pipelines starts: its spec, with
paths made absolute and the window set, and its Spark: Delta's JARs, the Delta SQL settings, a catalog.

    from shoptoolkit.engine.pipeline_setup import prepare_run
    spec_path, env = prepare_run(window=None)     # spark-pipelines run --spec spec_path, with env

The spec in git (pipelines/spark-pipeline.yml) is never edited: each run reads a copy beside it (the
libraries are found relative to the spec's folder). Delta comes in on the driver's class path
(SPARK_DIST_CLASSPATH: delta-spark and delta-storage from the Ivy cache; --packages does not reach
the pipeline's Connect server). Delta's SQL settings and a catalog that outlives the run (Derby, in
lake/_pipeline/) are in spark-defaults.conf of the SPARK_CONF_DIR lake/_pipeline/conf/, which also
holds a spark-env.sh with the JARs, for a by-hand `spark-pipelines` run or dags/sdp_nightly.py.
run_pipeline.py's own run reads that spark-defaults.conf as a properties file instead (pipeline_env).
"""
import hashlib
import importlib.util
import json
import os
import shlex
import sys
import tempfile
from pathlib import Path

from shoptoolkit.dates import run_dates
from shoptoolkit.engine.spark_jvm import QUICK_JIT, cached_delta_jars, java_options, java_problem
from shoptoolkit.engine.spark_settings import LOCAL_SETTINGS, SPARK_SETTINGS
from shoptoolkit.errors import ToolkitError
from shoptoolkit.places import TOOLKIT
from shoptoolkit.storage.location import is_local
from shoptoolkit.storage.project_paths import LAKE, day_file, logs_dir, project_root, shown

PIPELINE = TOOLKIT / "pipelines"
SPEC = PIPELINE / "spark-pipeline.yml"
PREPARED = ".spark-pipeline.prepared.yml"  # run_pipeline.py --prepare's copy, for dags/sdp_nightly.py
DATASETS = ("orders_raw", "orders_by_day")  # as pipelines/orders.py names them
START_FILE = "spark-start.json"  # in lake/_pipeline/: spark_start_env's, as dags/sdp_nightly.py reads it
# A caller's Spark Connect or launcher settings would send the pipeline's session elsewhere.
DROPPED_ENV = ("SPARK_REMOTE", "SPARK_CONNECT_MODE", "SPARK_API_MODE", "MASTER", "SPARK_ENV_LOADED",
               "PYSPARK_SUBMIT_ARGS", "SPARK_CONF_DIR")


def pipeline_home() -> Path:
    """lake/_pipeline/: the streaming checkpoints, the Derby catalog, the Spark settings. A local folder
    only: Derby, spark-submit's properties file and run_pipeline.py's flock need one."""
    if not is_local(project_root()):
        raise ToolkitError(f"the pipeline runs below a local folder only, not {project_root()}: its Derby "
                           f"catalog, Spark settings and run lock are files in lake/_pipeline/")
    return project_root() / LAKE / "_pipeline"


def driver_java(archive: bool) -> str:
    """The driver's JVM options: the scripts' log4j config, the quick JIT, with class_archive.py's
    archive if asked (only a JVM whose class path does not start with a conf dir can map it), and
    Derby's log under logs/."""
    return (f"{SPARK_SETTINGS['spark.driver.extraJavaOptions']} {java_options() if archive else QUICK_JIT} "
            f"-Dderby.stream.error.file=\"{logs_dir() / 'derby.log'}\"")


def spark_settings() -> dict:
    """spark-defaults.conf of a run: the scripts' settings, with a catalog that remembers the tables."""
    derby = pipeline_home() / "metastore_db"
    return {**SPARK_SETTINGS, **LOCAL_SETTINGS,
            # SDP finds last run's tables in the catalog; the in-memory one forgets them, and the
            # next run fails (LOCATION_ALREADY_EXISTS). Derby admits one process at a time.
            "spark.sql.catalogImplementation": "hive",
            "spark.sql.warehouse.dir": str(project_root() / LAKE),
            "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={derby};create=true",
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.driver.extraJavaOptions": driver_java(archive=False)}


def write_conf_dir(jars: list) -> Path:
    """lake/_pipeline/conf/: spark-defaults.conf, and spark-env.sh with Delta's JARs."""
    conf = pipeline_home() / "conf"
    conf.mkdir(parents=True, exist_ok=True)
    lines = [f"{key} {value}".replace("\\", "\\\\") for key, value in spark_settings().items()]
    (conf / "spark-defaults.conf").write_text("\n".join(lines) + "\n")
    (conf / "spark-env.sh").write_text(f"export SPARK_DIST_CLASSPATH='{os.pathsep.join(jars)}'\n")
    return conf


def delta_jars() -> list:
    """Delta's two JARs in the Ivy cache; a ToolkitError when Java or the JARs are missing."""
    problem = java_problem()
    if problem:
        raise ToolkitError(problem)
    jars = cached_delta_jars()
    if not jars:
        raise ToolkitError("Delta's JARs are not in ~/.ivy2.5.2/jars yet: run any script once "
                           "(make run), its first Spark start downloads them")
    return jars


def below_root(value: str) -> Path:
    return Path(value) if Path(value).is_absolute() else project_root() / value


def window_token(days: list) -> str:
    """A hash of the window's files: a changed file makes the window's flow new, so it reads them again."""
    found = [day for day in days if day_file(day).exists()]
    if not found:
        raise ToolkitError(f"no file in {shown(day_file(days[0]).parent)} for {days[0]} .. {days[-1]}")
    digest = hashlib.sha256()
    for day in found:
        digest.update(f"{day}\0".encode() + day_file(day).read_bytes())
    return digest.hexdigest()[:12]


def run_spec(spec_path: Path, window=None) -> dict:
    """The spec for this run: storage and spark.shop.landing absolute, the window set when one is given."""
    import yaml
    try:
        spec = yaml.safe_load(spec_path.read_text())
    except (OSError, yaml.YAMLError) as error:
        raise ToolkitError(f"cannot read the pipeline spec {shown(spec_path)}: {error}") from None
    conf = spec.setdefault("configuration", {})
    if "://" not in spec["storage"]:  # spark-pipelines wants an absolute URI (PIPELINE_STORAGE_ROOT_INVALID)
        spec["storage"] = below_root(spec["storage"]).as_uri()
    conf["spark.shop.landing"] = str(below_root(conf["spark.shop.landing"]))
    if window:
        days = run_dates(*window)
        conf.update({"spark.shop.window.first": str(days[0]), "spark.shop.window.last": str(days[-1]),
                     "spark.shop.window.token": window_token(days)})
    return spec


def write_run_spec(spec: dict, folder: Path, name: str = "") -> Path:
    """The run's copy of the spec beside the dataset code, under a hidden name: name, or a new one."""
    import yaml
    if name:
        (folder / name).write_text(yaml.safe_dump(spec, sort_keys=False))
        return folder / name
    with tempfile.NamedTemporaryFile("w", dir=folder, prefix=".run-", suffix=".yml", delete=False) as copy:
        yaml.safe_dump(spec, copy, sort_keys=False)
    return Path(copy.name)


def spark_home() -> Path:
    return Path(importlib.util.find_spec("pyspark").submodule_search_locations[0])


def spark_start_env(jars: list, conf: Path) -> dict:
    """How the CLI's Spark starts: a local Connect server of its own (SPARK_REMOTE=local), started by
    spark-submit with PYSPARK_SUBMIT_ARGS: the conf dir's spark-defaults.conf as a properties file,
    not as SPARK_CONF_DIR, which would put the folder first on the JVM's class path, where the class
    archive cannot be mapped; Delta's JARs on SPARK_DIST_CLASSPATH."""
    submit = ["--properties-file", str(conf / "spark-defaults.conf"),
              "--conf", f"spark.driver.extraJavaOptions={driver_java(archive=True)}", "pyspark-shell"]
    return {"SPARK_REMOTE": "local", "PYSPARK_SUBMIT_ARGS": shlex.join(submit),
            "SPARK_DIST_CLASSPATH": os.pathsep.join(jars)}


def pipeline_env(start: dict) -> dict:
    """The environment of run_pipeline.py's spark-pipelines CLI: how its Spark starts, pyspark's
    SPARK_HOME, this Python, and the toolkit's folder on PYTHONPATH (pipelines/orders.py imports shoptoolkit.table_schema)."""
    env = {key: value for key, value in os.environ.items() if key not in DROPPED_ENV}
    paths = [str(TOOLKIT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env.update(start, SPARK_HOME=str(spark_home()), PYSPARK_PYTHON=sys.executable, PYTHONPATH=os.pathsep.join(paths))
    return env


def prepare_run(spec_path: Path = SPEC, window=None, name: str = "") -> tuple:
    """Write the conf dir, lake/_pipeline/spark-start.json (how the pipeline's Spark starts, for
    dags/sdp_nightly.py's run task) and the run's spec; return (the spec's path, the CLI's environment)."""
    jars = delta_jars()
    start = spark_start_env(jars, write_conf_dir(jars))
    (pipeline_home() / START_FILE).write_text(json.dumps(start, indent=2) + "\n")
    spec = run_spec(spec_path, window)
    return write_run_spec(spec, spec_path.parent, name), pipeline_env(start)
