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
JAR := connector/target/scala-2.13/spark-sql-kinesis-assembly_2.13-$(VERSION).jar
JARS_DIR := python/pyspark_kinesis/jars

.PHONY: help readme-options fmt lint demo test test-reliability soak bench bench-realtime test-scala test-python test-e2e jar wheel venv publish-local kinesis-up kinesis-down clean

help:
	@echo "make demo   - run the demo: local Kinesis -> PySpark streaming query -> Delta table"
	@echo "make test   - build everything and run every test (Scala, Python, end to end)"
	@echo "make test-reliability - every row of the reliability suite: faults x mode x trigger (< 30 min)"
	@echo "make bench  - benchmark: records/s and latency against the local Kinesis (on demand)"
	@echo "make bench-realtime - real-time mode latency (put -> sink), both modes vs micro-batch (BENCH_ARGS, on demand)"
	@echo "make soak   - soak run under periodic faults, memory and threads over time (SOAK_ARGS, on demand)"
	@echo "make fmt    - apply the formatters (scalafmt, ruff's safe fixes); make lint - check (make test runs it)"
	@echo "make readme-options - regenerate README's option tables and the Python registry from KinesisOptions.scala"
	@echo "make jar | wheel | publish-local | kinesis-up | kinesis-down | clean"

$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

SBT_BUILD := connector/assembly connector/package connector/publishM2
SOURCES := $(shell find connector/src/main project -type f -not -path '*/target/*') build.sbt

# The assembly jar (SDK, Netty and the rest shaded), the thin jar, and the copy in the local
# Maven repository (~/.m2) that `spark-submit --packages` resolves; one sbt start for all.
$(JAR): $(SOURCES)
	$(SBT) $(SBT_BUILD)
	touch $@

jar: $(JAR)

# The wheel carries exactly the jar just built, and is installed as a user would install it.
wheel: $(JAR) venv
	rm -f $(JARS_DIR)/*.jar python/dist/*.whl
	cp $(JAR) $(JARS_DIR)/
	rm -rf python/build
	$(PY) -m pip wheel --quiet --no-deps -w python/dist ./python
	$(PY) -m pip install --quiet --force-reinstall --no-deps python/dist/pyspark_kinesis-*.whl

publish-local:
	$(SBT) connector/publishM2 connector/publishLocal

test-scala:
	$(SBT) connector/test | build/test-summary

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

RUFF_PATHS := python tests examples

fmt: venv
	$(SBT) scalafmtAll scalafmtSbt
	$(VENV)/bin/ruff check --fix $(RUFF_PATHS)

# Unused imports, privates and locals fail the Scala lint compile (build.sbt, SPARKKINESIS_LINT).
# The scalafmt check (connector/scalafmtCheckAll) joins once make fmt has been applied to the
# whole tree in one commit, after the parallel branches are merged.
lint: venv
	$(VENV)/bin/ruff check $(RUFF_PATHS)
	SPARKKINESIS_LINT=1 $(SBT) connector/Test/compile

# One sbt start builds, tests and publishes; then the Python and end-to-end suites.
test: venv lint
	$(SBT) connector/test $(SBT_BUILD) | build/test-summary
	touch $(JAR)
	$(MAKE) --no-print-directory test-python test-e2e

demo: wheel
	$(PY) examples/demo/watch_events_demo.py $(DEMO_ARGS)

# On demand, never in CI: throughput and latency against the local Kinesis (results in
# tests/benchmarks/results/).
bench: wheel
	$(PY) tests/benchmarks/ingest_latency.py $(BENCH_ARGS)

# On demand, never in CI: real-time mode's latency, put -> visible in a foreach sink, in both
# consumer modes and in micro-batch mode (results in tests/benchmarks/results/).
bench-realtime: wheel
	$(PY) tests/benchmarks/realtime_latency.py $(BENCH_ARGS)

# On demand, never in CI: a long query under periodic faults (default 30 minutes; e.g.
# SOAK_ARGS="--minutes 3 --mode polling"); results in tests/benchmarks/results/.
soak: wheel
	$(PY) tests/benchmarks/soak.py $(SOAK_ARGS)

# The README's option tables and python/pyspark_kinesis/_registry.json, written from the option
# registry (KinesisOptions.scala); OptionsReferenceSuite (in make test) fails when they differ.
readme-options:
	$(SBT) "connector/Test/runMain io.github.sparkkinesis.options.OptionsReference"

kinesis-up:
	localstack/start-kinesis.sh

kinesis-down:
	localstack/stop-kinesis.sh

clean:
	rm -rf $(VENV) python/dist python/build $(JARS_DIR)/*.jar .demo .demo-jars
	$(SBT) clean
