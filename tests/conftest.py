# SPDX-License-Identifier: Apache-2.0
"""Fixtures for the end-to-end tests. The work is in kinesis_local.py."""

import os

import pytest

from faults import FaultProxy
from kinesis_local import kinesis_for_tests
from localstack_container import BackendUnavailable
from moto_local import moto_for_tests


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "slow: waits long for a condition (e.g. a stream deleted while a query runs); deselect with -m 'not slow'",
    )


# The files whose tests take a minute or more each, most of it in JVMs of their own (spark-submit,
# spark-pipelines, local-cluster executors, the demo's session), longest first. They run before
# the others, so that with several workers (make test-e2e: --dist loadfile, which keeps a file on
# one worker, and --no-loadscope-reorder, which keeps this order) the many short files fill in at
# the end and the workers finish together, rather than one idling while another runs a long file.
LONG_FILES_FIRST = (
    "test_pipelines.py",
    "test_secrets_do_not_leak.py",
    "test_deployment.py",
    "test_auth.py",
    "test_demo_first_run.py",
    "test_record_ids.py",
)


def pytest_collection_modifyitems(items):
    """The long files first (LONG_FILES_FIRST), the rest in the order collected (a stable sort)."""
    rank = {name: i for i, name in enumerate(LONG_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


_SECONDS_BY_FILE: dict[str, float] = {}


def pytest_runtest_logreport(report):
    """Adds each phase's time to its file's (on the controller too, under xdist)."""
    path = report.nodeid.split("::", 1)[0]
    _SECONDS_BY_FILE[path] = _SECONDS_BY_FILE.get(path, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    """The files that took longest, fixtures included: where make test's time goes."""
    if len(_SECONDS_BY_FILE) < 2:
        return
    terminalreporter.section("slowest files")
    for path, seconds in sorted(_SECONDS_BY_FILE.items(), key=lambda item: -item[1])[:15]:
        terminalreporter.write_line(f"{seconds:8.1f}s {path}")


@pytest.fixture(scope="session")
def kinesis(tmp_path_factory):
    """A Kinesis for the whole session (see kinesis_local.Kinesis): .endpoint, .region,
    .client (boto3), .tls_endpoint, .trust_store (kinesis_local.TrustStore for JVMs that use
    .tls_endpoint: kinesis-mock then serves a certificate for 127.0.0.1 made for the session),
    .create_stream(name=None, shards=2) -> name,
    .put_records(stream, [(partition_key, bytes)]) -> [(shardId, sequenceNumber)],
    .delete_stream(name).

    Without KINESIS_ENDPOINT it starts kinesis-mock (localstack/start-kinesis.sh) on free
    loopback ports, run files in a private temp dir, and stops it at session end. While it
    runs, os.environ holds fake AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and AWS_REGION, so
    a Spark session created after this fixture (depend on it) finds them through the AWS
    SDK's default credential chain.

    With KINESIS_BACKEND=localstack it starts a LocalStack container instead (testcontainers;
    .tls_endpoint None), and every test that needs it is skipped, saying why, where that cannot
    run (no Docker daemon). With KINESIS_ENDPOINT set (real AWS, LocalStack) nothing is
    started: that endpoint, AWS_REGION and the default credential chain are used."""
    try:
        with kinesis_for_tests(tmp_path_factory.mktemp("kinesis")) as k:
            yield k
    except BackendUnavailable as unavailable:
        pytest.skip(str(unavailable))


@pytest.fixture(autouse=True)
def _delete_streams_after_each_test(request):
    """Streams a test created on the session's Kinesis are deleted when it ends (those of
    module-scoped fixtures, made before the test, stay for the module's other tests)."""
    kinesis = request.getfixturevalue("kinesis") if "kinesis" in request.fixturenames else None
    before = set(kinesis.created) if kinesis else set()
    yield
    if kinesis:
        kinesis.delete_created_streams(keep=before)


@pytest.fixture
def stream(kinesis):
    """A fresh 2-shard stream, deleted after the test (as every stream a test creates); its name."""
    return kinesis.create_stream(shards=2)


@pytest.fixture
def fault_proxy(kinesis):
    """A faults.FaultProxy in front of the session's Kinesis (see tests/support/faults/__init__.py):
    point clients at .endpoint, program faults with .add(Fault...), read .injected and .calls.
    Closed after the test. Needs the local kinesis-mock (its plain http endpoint)."""
    if not kinesis.endpoint.startswith("http://"):
        pytest.skip("the fault proxy forwards to a plain http Kinesis (kinesis-mock)")
    with FaultProxy(upstream=kinesis.endpoint, seed=1) as proxy:
        yield proxy


@pytest.fixture(scope="session")
def spark(kinesis):
    """A local[2] session with the connector added the way users add it: the installed wheel's
    pyspark_kinesis.configure(). Created after `kinesis`, so its JVM sees the credentials."""
    from pyspark.sql import SparkSession

    import pyspark_kinesis

    builder = (
        SparkSession.builder.master("local[2]")
        .appName("kinesis-e2e")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
    )
    session = pyspark_kinesis.configure(builder).getOrCreate()
    session.sparkContext.setLogLevel("WARN")
    # make test-e2e-java21 names the Java the run is for: it must not pass on the default one.
    wanted_java = os.environ.get("E2E_JAVA")
    if wanted_java:
        jvm = session.sparkContext._jvm
        assert jvm is not None
        java = jvm.java.lang.System.getProperty("java.specification.version")
        assert java == wanted_java, f"E2E_JAVA={wanted_java}, but the session's JVM is Java {java} (JAVA_HOME?)"
    yield session
    session.stop()


@pytest.fixture(scope="session")
def moto(tmp_path_factory):
    """moto's server (see moto_local.Moto): .endpoint, .region, .admin (boto3 credentials),
    .kinesis (a kinesis_local.Kinesis on moto), .create_user(name, actions) -> (key id, secret,
    arn), .create_role(name, trusted_arn, actions, external_id=None) -> arn,
    .assumed_roles(role_arn) -> what STS answered. IAM authentication is on: every request
    must be signed by a key moto issued and be allowed by that identity's policies.
    Started on a free loopback port for the session, stopped at its end."""
    with moto_for_tests(tmp_path_factory.mktemp("moto")) as m:
        m.enable_iam_auth()
        yield m


@pytest.fixture
def json_protocol(spark):
    """Kinesis clients the shared Spark JVM builds during the test speak JSON, not CBOR
    (the SDK reads aws.cborEnabled when it builds a client): moto's Kinesis knows only JSON."""
    system = spark.sparkContext._jvm.java.lang.System
    previous = system.getProperty("aws.cborEnabled")
    system.setProperty("aws.cborEnabled", "false")
    try:
        yield
    finally:
        if previous is None:
            system.clearProperty("aws.cborEnabled")
        else:
            system.setProperty("aws.cborEnabled", previous)


@pytest.fixture
def short_batches(spark):
    """Real-time batches of a second or two, so a test sees several."""
    from realtime import MIN_BATCH_DURATION

    spark.conf.set(MIN_BATCH_DURATION, "1000")
    yield
    spark.conf.unset(MIN_BATCH_DURATION)
