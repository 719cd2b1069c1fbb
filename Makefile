# Two commands on a fresh clone:  `make run` (the main job) and `make test` (the tests).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: setup run test bench
setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -r requirements.txt
	touch $@

# Make September's files, backfill it in one Spark session, check the month.
run: setup
	$(PY) make_days.py --clean
	$(PY) backfill.py 2026-09-02 2026-10-01
	$(PY) check_month.py 2026-09

test: setup
	$(PY) -m pytest -q tests

bench: setup
	$(PY) bench/bench_backfill.py
