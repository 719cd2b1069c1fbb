# Two commands on a fresh clone:  `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# requirements/uv.txt's uv, installed into .venv with pip, installs everything else there: from uv's own
# cache first (--offline asks the index nothing, so pyspark's source package, the one not published as a
# wheel, is not fetched and built again: about 20 s a new clone), from the package index when something
# is not in the cache yet (a new machine, a new pin). --compile-bytecode writes each module's .pyc once,
# here: where PYTHONDONTWRITEBYTECODE is set (as in many containers) Python never writes one itself, and
# every process would compile what it imports again (pyspark.sql with pandas and pyarrow: 1.7 CPU-s a
# process instead of 0.5; Airflow's models 3.5 instead of 1.4). docs/benchmarks.md, "The venv's bytecode".
UV_PIP := $(VENV)/bin/uv pip install -q --compile-bytecode --python $(PY)
install = $(UV_PIP) --offline $(1) 2>/dev/null || $(UV_PIP) $(1)

.PHONY: setup airflow-setup databricks-setup test-setup run run-s3 run-gcs pipeline test soak soak-s3 mutants bench bench-parallel bench-dag \
	bench-peers
setup: $(VENV)/.installed $(VENV)/.archive-built $(VENV)/.classes-built

# requirements/connect.txt: the Spark Connect client, for spark_server.py and SPARK_REMOTE.
$(VENV)/.installed: requirements.txt requirements/connect.txt requirements/uv.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements/uv.txt
	$(call install,-r requirements.txt -r requirements/connect.txt)
	touch $@

# The class archive every script's JVM starts from (shoptoolkit/engine/class_archive.py): a sample run's
# classes, about 35 s.
$(VENV)/.archive-built: $(VENV)/.installed
	$(PY) -m shoptoolkit.engine.class_archive
	touch $@

# The toolkit's Java classes (shoptoolkit/engine/log_store.py), built again whenever a source of them changes.
$(VENV)/.classes-built: $(VENV)/.archive-built $(wildcard shoptoolkit/engine/java/shoptoolkit/*.java)
	$(PY) -m shoptoolkit.engine.log_store
	touch $@

# Make September's files, backfill it in one Spark session, check the month.
run: setup
	$(PY) make_days.py --clean
	$(PY) backfill.py 2026-09-02 2026-10-01
	$(PY) check_month.py 2026-09

# The same September on a bucket of a local S3 server (moto's, on 127.0.0.1), stopped at the end: the
# same lines and calendar as make run (docs/object_storage.md). moto comes with the tests' packages.
run-s3: test-setup
	$(PY) tests/support/local_s3.py

# The same September on a bucket of a local Google Cloud Storage server (fake-gcs-server, built by test-setup,
# on 127.0.0.1), stopped at the end: the same lines and calendar as make run (docs/object_storage.md).
run-gcs: test-setup
	$(PY) tests/support/local_gcs.py

# The same month as a Spark Declarative Pipeline (docs/pipelines.md): an incremental run, then its check.
pipeline: setup
	$(PY) make_days.py
	$(PY) run_pipeline.py
	$(PY) check_pipeline.py 2026-09

# Airflow 3 for dags/shop_daily.py (docs/airflow.md), in the same .venv; the core runs without it.
airflow-setup: $(VENV)/.airflow-installed

$(VENV)/.airflow-installed: $(VENV)/.installed requirements/airflow.txt requirements/airflow-constraints.txt
	$(call install,-r requirements/airflow.txt -c requirements/airflow-constraints.txt)
	touch $@

# databricks-bundles (to validate databricks.yml) and the Airflow provider for
# dags/shop_daily_databricks.py (docs/databricks.md), in the same .venv, after Airflow.
databricks-setup: $(VENV)/.databricks-installed

$(VENV)/.databricks-installed: $(VENV)/.airflow-installed requirements/databricks.txt
	$(call install,-r requirements/databricks.txt)
	touch $@

# pytest, and nbclient with ipykernel for the notebook tests, after Airflow (its pins come first); moto's S3
# server and the S3 connector (shoptoolkit/storage/s3_connector.py) for the tests on a bucket; Google's Cloud
# Storage connector (shoptoolkit/storage/gcs_connector.py, one JAR, 38.6 MiB) and fake-gcs-server,
# a local Google Cloud Storage server, built from source with Go (`go` on PATH, or /usr/local/go/bin/go) once
# into .venv/share/shop-toolkit/ (48 MiB; 95 s on a new machine, seconds from Go's own caches; tests/support/local_gcs.py),
# for the tests on gs://.
# Two at a time (-j2), each target's output kept together (-O): the archive's sample run goes on beside
# Airflow's, Databricks' and the test packages' installs (it imports none of what they replace: Databricks'
# python-dateutil), the toolkit's classes after it (it fetches Delta's JARs they compile against).
TEST_PARTS := $(VENV)/.test-installed $(VENV)/.archive-built $(VENV)/.classes-built $(VENV)/.hold-built
test-setup:
	@$(MAKE) --no-print-directory -q $(TEST_PARTS) || $(MAKE) --no-print-directory -j2 -O $(TEST_PARTS)

$(VENV)/.test-installed: $(VENV)/.databricks-installed requirements/test.txt
	$(call install,-r requirements/test.txt)
	$(PY) -m shoptoolkit.storage.s3_connector
	$(PY) -m shoptoolkit.storage.gcs_connector
	$(PY) tests/support/local_gcs.py --build
	touch $@

# The held writes' Java filter (tests/support/holding.py, java/HeldRows.java): a JAR of one class, the JDK alone.
$(VENV)/.hold-built: $(VENV)/.installed tests/support/java/HeldRows.java
	$(PY) tests/support/holding.py --build
	touch $@

# Includes the Airflow tests (pytest -m "not airflow" leaves them out), the Databricks bundle's and
# the notebook's (a real Jupyter kernel). Two workers, one per core, each test file whole on one of them,
# in tests/conftest.py's order (longest first); `make test TEST_WORKERS=0` runs it in one process.
# --no-skips (tests/conftest.py) makes a skipped test an error: everything above is installed here.
TEST_WORKERS ?= 2
test: test-setup
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=30 --no-skips tests

# The model check on new seeds for SECONDS seconds (docs/tests.md), then its figures: not part of make test,
# which runs a fixed set of seeds. A divergence prints its seed and the shortest history that shows it.
SECONDS ?= 600
soak: test-setup
	$(PY) tests/model_check.py --soak $(SECONDS)

# The same on a bucket of a local S3 server (tests/support/local_s3.py's, started and stopped by the run).
soak-s3: test-setup
	$(PY) tests/model_check.py --soak $(SECONDS) --local-s3

# Planted bugs (tests/mutants.py), each in a copy of the tree, against the model check's fixed runs:
# a line a mutant, caught or not, by which run and check, then the table's fingerprint for docs/tests.md.
mutants: test-setup
	$(PY) tests/mutants.py

# The figures of docs/benchmarks.md (about 100 minutes on 2 cores; each script says how to
# run a part). The reference lines need delta-rs (requirements/bench.txt); the toolkit does not.
# After test-setup: bench_cluster.py starts tests/support/standalone.py's cluster, bench_buckets.py
# tests/support/local_s3.py's and local_gcs.py's servers.
bench: test-setup
	$(call install,-r requirements/bench.txt)
	$(PY) bench/bench_commits.py
	$(PY) bench/bench_backfill.py
	$(PY) bench/bench_warm.py
	$(PY) bench/bench_scale.py
	$(PY) bench/bench_engine.py
	$(PY) bench/bench_cold_day.py
	$(PY) bench/bench_refused.py
	$(PY) bench/bench_jit.py
	$(PY) bench/bench_upkeep.py
	$(PY) bench/bench_cluster.py
	$(PY) bench/bench_buckets.py
	$(PY) bench/bench_s3_requests.py

bench-parallel: setup
	$(PY) bench/bench_parallel.py

# One shop_daily run under a real Airflow, its tasks on their own Spark and on a warm server
# (docs/airflow.md; about 5 minutes). It borrows the end-to-end test's helpers, so it needs pytest too.
bench-dag: test-setup
	$(PY) bench/bench_dag.py

# The toolkit beside Spark with pandera, Great Expectations and DQX on the million-order day
# (bench/bench_peers.py, docs/benchmarks.md; about 4 minutes, and the venv's first build). The peers live in a
# venv of their own, .venv-peers, from Python 3.11, with the toolkit's pins and its Java classes, built as setup
# builds them (class_archive's first Spark start fetches Delta's JARs, which log_store compiles against).
PEERS_PYTHON ?= python3.11
PEERS_VENV := .venv-peers
PEERS_PY := $(PEERS_VENV)/bin/python
bench-peers: $(PEERS_VENV)/.installed
	$(PEERS_PY) bench/bench_peers.py
	$(PEERS_PY) bench/bench_peers.py --what year

$(PEERS_VENV)/.installed: requirements.txt requirements/peers.txt requirements/uv.txt
	$(PEERS_PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_PY) -m pip install -q -r requirements/uv.txt
	$(PEERS_VENV)/bin/uv pip install -q --compile-bytecode --python $(PEERS_PY) -r requirements.txt -r requirements/peers.txt
	$(PEERS_PY) -m shoptoolkit.engine.class_archive
	$(PEERS_PY) -m shoptoolkit.engine.log_store
	touch $@
