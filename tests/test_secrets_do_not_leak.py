# SPDX-License-Identifier: Apache-2.0
"""ARCHITECTURE.md invariant 7, end to end: keys given as options never show up anywhere.

tests/apps/leak_probe.py runs in its own JVM (spark-submit) with distinctive fake keys as
options, against kinesis-mock (which accepts any key), and once against moto's Kinesis (which rejects
them). It logs at DEBUG for the connector's
loggers (io.github.sparkkinesis, which includes the shaded AWS SDK) and INFO for everything
else, keeps an event log and the Spark UI, and writes down what a user can see: explain in
every mode, the query's toString, status and progress, the messages of queries that fail at
run time and at load(), the UI's SQL, environment, jobs, stages and streaming pages and REST
API. The test then searches every one of those files, the checkpoint and the app's own
output for the keys.
"""

import os
import shutil
import urllib.parse
from pathlib import Path

from kinesis_local import free_ports
from streaming import make_records
from submit import APPS, spark_submit

# Each holds a marker found nowhere else, so a partial or re-encoded copy is caught as well.
ACCESS_KEY = "AKIALEAKTESTLEAKTEST"
SECRET_KEY = "LeakSecretQ7/wJalrXUtnFEMIzz+bPxRfiCYLEAK"
SESSION_TOKEN = "LeakTokenX9+IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQ"
PROXY_PASSWORD = "LeakProxyPw7/q+Zr4"
PROVIDER_PARAM = "LeakProviderParam3-vault-token"
MARKERS = {
    "awsAccessKey": [ACCESS_KEY, "LEAKTESTLEAKTEST"],
    "awsSecretKey": [SECRET_KEY, "LeakSecretQ7", urllib.parse.quote(SECRET_KEY, safe="")],
    "awsSessionToken": [SESSION_TOKEN, "LeakTokenX9", urllib.parse.quote(SESSION_TOKEN, safe="")],
    "proxyPassword": [PROXY_PASSWORD, "LeakProxyPw", urllib.parse.quote(PROXY_PASSWORD, safe="")],
    "awsCredentialsProviderSecret": [PROVIDER_PARAM, "LeakProviderParam"],
}

LOG4J2 = """\
rootLogger.level = info
rootLogger.appenderRef.file.ref = file
appender.file.type = File
appender.file.name = file
appender.file.fileName = {log}
appender.file.layout.type = PatternLayout
appender.file.layout.pattern = %d{{HH:mm:ss.SSS}} %p %c: %m%n%ex
logger.connector.name = io.github.sparkkinesis
logger.connector.level = debug
"""


def leaks(root):
    """(file, option) for every file under root that holds a marker of an option's value."""
    found = []
    for path in sorted(p for p in Path(root).rglob("*") if p.is_file()):
        data = path.read_bytes()
        for option, markers in MARKERS.items():
            if any(m.encode() in data for m in markers):
                found.append((str(path.relative_to(root)), option))
    return found


def test_the_search_finds_a_key_where_there_is_one(tmp_path):
    (tmp_path / "a.log").write_text(f"x {urllib.parse.quote(SECRET_KEY, safe='')} y")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.bin").write_bytes(b"\x00" + ACCESS_KEY.encode())
    assert leaks(tmp_path) == [("a.log", "awsSecretKey"), ("sub/b.bin", "awsAccessKey")]


def test_keys_given_as_options_appear_in_no_log_plan_ui_page_error_or_checkpoint(kinesis, moto, tmp_path):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(50))
    out, logs = tmp_path / "probe", tmp_path / "logs"
    logs.mkdir()
    log4j = tmp_path / "log4j2.properties"
    log4j.write_text(LOG4J2.format(log=logs / "driver.log"))
    # SPARK_LOCAL_IP: the UI listens on loopback only, not on every interface.
    env = dict(
        os.environ,
        SPARK_LOCAL_IP="127.0.0.1",
        LEAK_ACCESS_KEY=ACCESS_KEY,
        LEAK_SECRET_KEY=SECRET_KEY,
        LEAK_SESSION_TOKEN=SESSION_TOKEN,
        LEAK_PROXY_PASSWORD=PROXY_PASSWORD,
        LEAK_PROVIDER_PARAM=PROVIDER_PARAM,
    )

    done = spark_submit(
        [
            # JSON rather than CBOR, for moto's Kinesis (kinesis-mock speaks both).
            "--driver-java-options",
            f"-Dlog4j2.configurationFile=file:{log4j} -Daws.cborEnabled=false",
            "--conf",
            f"spark.ui.port={free_ports(1)[0]}",
            "--conf",
            "spark.ui.showConsoleProgress=false",
            "--conf",
            "spark.sql.extensions=io.github.sparkkinesis.sql.KinesisSqlExtensions",
            "--conf",
            "spark.eventLog.enabled=true",
            "--conf",
            f"spark.eventLog.dir={logs}",
            str(APPS / "leak_probe.py"),
            str(out),
            kinesis.endpoint,
            kinesis.region,
            stream,
            moto.endpoint,
        ],
        logs,
        env=env,
        ui=True,
    )

    # The probe did what it should, so the search below is not vacuous.
    assert "LEAK_PROBE_DONE" in done.stdout
    assert (out / "rows.txt").read_text() == "50"
    driver_log = (logs / "driver.log").read_text()
    assert " DEBUG io.github.sparkkinesis" in driver_log, "the connector's loggers ran at DEBUG"
    assert int((out / "ui-fetched.txt").read_text()) >= 8
    assert (
        "KinesisV2" in (out / "ui" / "sql-execution-0.html").read_text()
        or "KinesisV2" in (out / "ui" / "api-sql.html").read_text()
    )
    assert "Spark Properties" in (out / "ui" / "environment.html").read_text()
    assert "spark.app.name" in (out / "ui" / "api-environment.html").read_text()
    assert "KinesisV2" in (out / "explain-extended.txt").read_text()
    assert any((out / "checkpoint" / "offsets").iterdir())
    assert any("local-" in p.name for p in logs.iterdir()), "an event log was written"
    expected_failures = {
        "stream-not-found": "KINESIS_STREAM_NOT_FOUND",
        "sts-unreachable": "KINESIS_ASSUME_ROLE_FAILED",
        "rejected-keys": "KINESIS_AUTHENTICATION_FAILED",
        "secret-without-access-key": "KINESIS_CONFLICTING_OPTIONS",
        "misspelt-secret-option": "KINESIS_UNKNOWN_OPTION",
        "bad-region": "KINESIS_INVALID_OPTION_VALUE",
        "proxy-unreachable": "KINESIS_ENDPOINT_UNREACHABLE",
    }
    for name, condition in expected_failures.items():
        assert condition in (out / f"failure-{name}.txt").read_text(), name
    # An error about the keys names them the way the AWS CLI does, never in full.
    assert "access key AKIA…TEST from the options" in (out / "failure-rejected-keys.txt").read_text()
    assert "through the proxy 127.0.0.1:9" in (out / "failure-proxy-unreachable.txt").read_text()
    # The Glue Schema Registry functions' failures name the credentials as the connector does.
    rejected = (out / "failure-registry-rejected-keys.txt").read_text()
    assert "glue:GetSchemaVersion" in rejected and "AKIA…TEST" in rejected, rejected[:2000]
    for name in ("registry-unreachable", "registry-proxied", "registry-write"):
        assert "could not be reached" in (out / f"failure-{name}.txt").read_text(), name
    assert "from_gsr_json" in (out / "explain-registry.txt").read_text()
    # Spark prints data source options in plans, masked by spark.redaction.regex.
    assert "awsSecretKey=*********(redacted)" in (out / "explain-analyzed.txt").read_text()
    assert "proxyPassword=*********(redacted)" in (out / "explain-proxied.txt").read_text()
    # awslabs' name of a provider's secret, which Spark's patterns miss: the connector widens them.
    assert "kinesis.credentialProviderParam=*********(redacted)" in (out / "explain-provided.txt").read_text()

    assert leaks(tmp_path) == [], "a key given as an option shows up in these files"
    assert not any(m in done.stdout + done.stderr for ms in MARKERS.values() for m in ms)


# Executors log to stderr, which the local-cluster worker keeps in its work directory.
EXECUTOR_LOG4J2 = """\
rootLogger.level = info
rootLogger.appenderRef.console.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss.SSS} %p %c: %m%n%ex
logger.connector.name = io.github.sparkkinesis
logger.connector.level = debug
"""


def test_efo_on_separate_executor_jvms_logs_no_key_at_debug(kinesis, tmp_path):
    """Enhanced fan-out on local-cluster: the consumer manager and the subscriptions run with
    the SDK's loggers at DEBUG, in the driver and in executor JVMs of their own, and no log
    holds a key (the SDK's signers would print the session token)."""
    import pyspark

    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(40))
    out, logs = tmp_path / "probe", tmp_path / "logs"
    logs.mkdir()
    driver_log4j, executor_log4j = tmp_path / "driver-log4j2.properties", tmp_path / "executor-log4j2.properties"
    driver_log4j.write_text(LOG4J2.format(log=logs / "driver.log"))
    executor_log4j.write_text(EXECUTOR_LOG4J2)
    env = dict(
        os.environ,
        SPARK_LOCAL_IP="127.0.0.1",
        LEAK_ACCESS_KEY=ACCESS_KEY,
        LEAK_SECRET_KEY=SECRET_KEY,
        LEAK_SESSION_TOKEN=SESSION_TOKEN,
        LEAK_PROXY_PASSWORD=PROXY_PASSWORD,
    )

    done = spark_submit(
        [
            "--master",
            "local-cluster[2,1,1024]",
            "--driver-java-options",
            f"-Dlog4j2.configurationFile=file:{driver_log4j}",
            "--conf",
            f"spark.executor.extraJavaOptions=-Dlog4j2.configurationFile=file:{executor_log4j}",
            str(APPS / "efo_leak_probe.py"),
            str(out),
            kinesis.endpoint,
            kinesis.region,
            stream,
            f"leak-{os.getpid()}",
        ],
        logs,
        env=env,
    )

    assert "EFO_LEAK_PROBE_DONE" in done.stdout
    assert (out / "rows.txt").read_text() == "40"
    assert int((out / "executors.txt").read_text()) == 2
    # local-cluster workers keep each executor's stderr under SPARK_HOME/work/<app id>/.
    executors = Path(pyspark.__file__).parent / "work" / (out / "app-id.txt").read_text()
    executor_logs = sorted(executors.rglob("stderr"))
    assert len(executor_logs) >= 2, f"no executor logs under {executors}"
    # The search below is not vacuous: the SDK ran at DEBUG, subscribing, in the executors.
    assert " DEBUG io.github.sparkkinesis" in (logs / "driver.log").read_text()
    executor_text = "".join(p.read_text(errors="replace") for p in executor_logs)
    assert " DEBUG io.github.sparkkinesis.shaded.software.amazon.awssdk" in executor_text
    assert "SubscribeToShard" in executor_text
    assert leaks(tmp_path) == [], "a key shows up in the driver's logs"
    assert leaks(executors) == [], f"a key shows up in an executor's log (under {executors})"
    assert not any(m in done.stdout + done.stderr for ms in MARKERS.values() for m in ms)
    shutil.rmtree(executors)  # Only when clean: a leak's logs stay for the diagnosis.
