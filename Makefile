# The two commands of README.md: `make demo` and `make test`. Each installs what it needs:
# the sbt launcher (build/sbt), Python packages in .venv, and kinesis-mock from npm.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SBT := build/sbt
VERSION := $(shell sed -n 's/.*val project = "\(.*\)"/\1/p' project/Versions.scala)
# One assembly jar per Spark line (project/SparkLines.scala); the default line's comes first.
# SPARK_LINES=default builds only that one, for a quicker edit-test loop on Spark 4.2.
line_jar = $(1)/target/scala-$(2)/spark-sql-kinesis-$(3)_$(2)-assembly-$(VERSION).jar
JAR := $(call line_jar,connector,2.13,4.2)
ALL_JARS := $(JAR) \
	$(call line_jar,connector/lines/spark-4.1,2.13,4.1) \
	$(call line_jar,connector/lines/spark-4.0,2.13,4.0) \
	$(call line_jar,connector/lines/spark-3.5_2.13,2.13,3.5) \
	$(call line_jar,connector/lines/spark-3.5_2.12,2.12,3.5)
SPARK_LINES ?= all
ifeq ($(SPARK_LINES),default)
SBT_PROJECT := connector
JARS := $(JAR)
else
SBT_PROJECT := allLines
JARS := $(ALL_JARS)
endif
JARS_DIR := python/pyspark_kinesis/jars

.PHONY: help demo test test-reliability soak bench test-scala test-python test-e2e jar wheel venv publish-local kinesis-up kinesis-down clean test-compat test-connect venv-3.5

help:
	@echo "make demo   - run the demo: local Kinesis -> PySpark streaming query -> Delta table"
	@echo "make test   - build everything and run every test (Scala, Python, end to end)"
	@echo "make test-reliability - every row of the reliability suite: faults x mode x trigger (< 30 min)"
	@echo "make bench  - benchmark: records/s and latency against the local Kinesis (on demand)"
	@echo "make soak   - soak run under periodic faults, memory and threads over time (SOAK_ARGS, on demand)"
	@echo "make jar | wheel | publish-local | kinesis-up | kinesis-down | clean"

$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

SBT_BUILD := $(SBT_PROJECT)/assembly $(SBT_PROJECT)/package $(SBT_PROJECT)/publishM2
SOURCES := $(shell find connector/src/main project -type f -not -path '*/target/*') build.sbt

# The assembly jars (SDK, Netty and the rest shaded), the thin jars, and the copies in the
# local Maven repository (~/.m2) that `spark-submit --packages` resolves; one sbt start for all.
$(JAR): $(SOURCES)
	$(SBT) $(SBT_BUILD)
	touch $(JARS)

jar: $(JAR)

# The wheel carries exactly the jars just built (one per Spark line), and is installed as a
# user would install it.
wheel: $(JAR) venv
	rm -f $(JARS_DIR)/*.jar python/dist/*.whl
	cp $(JARS) $(JARS_DIR)/
	rm -rf python/build
	$(PY) -m pip wheel --quiet --no-deps -w python/dist ./python
	$(PY) -m pip install --quiet --force-reinstall --no-deps python/dist/pyspark_kinesis-*.whl

publish-local:
	$(SBT) $(SBT_PROJECT)/publishM2 $(SBT_PROJECT)/publishLocal

# The unit tests on the newest line and on the oldest (Spark 3.5, Scala 2.12).
SBT_TESTS := connector/test spark35_212/test

test-scala:
	$(SBT) $(SBT_TESTS) | build/test-summary

test-python: wheel
	$(PY) -m mypy --strict python/pyspark_kinesis
	$(PY) -m pytest python/tests -q

# The reliability suite's rows marked reliability_full run only in test-reliability.
test-e2e: wheel
	$(PY) -m pytest tests -m "not reliability_full" -v -rs --durations=10

# All of the reliability suite (tests/reliability/): each row adds a line to
# tests/reliability/results/latest.md. pytest fails when nothing is selected (exit code 5).
test-reliability: wheel
	status=0; $(PY) -m pytest tests/reliability -m reliability -v -rs --durations=10 || status=$$?; \
	cat tests/reliability/results/latest.md; exit $$status

# One sbt start builds, tests and publishes; then the Python and end-to-end suites.
test: venv
	$(SBT) $(SBT_TESTS) $(SBT_BUILD) | build/test-summary
	touch $(JARS)
	$(MAKE) --no-print-directory test-python test-e2e

demo: wheel
	$(PY) examples/demo/watch_events_demo.py $(DEMO_ARGS)

# On demand, never in CI: throughput and latency against the local Kinesis (results in
# tests/benchmarks/results/).
bench: wheel
	$(PY) tests/benchmarks/ingest_latency.py $(BENCH_ARGS)

# On demand, never in CI: a long query under periodic faults (default 30 minutes; e.g.
# SOAK_ARGS="--minutes 3 --mode polling"); results in tests/benchmarks/results/.
soak: wheel
	$(PY) tests/benchmarks/soak.py $(SOAK_ARGS)

kinesis-up:
	localstack/start-kinesis.sh

kinesis-down:
	localstack/stop-kinesis.sh

clean:
	rm -rf $(VENV) python/dist python/build $(JARS_DIR)/*.jar .demo
	$(SBT) clean
