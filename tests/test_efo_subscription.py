# SPDX-License-Identifier: Apache-2.0
"""End to end: enhanced fan-out SubscribeToShard from the shipped (shaded) connector jar, over
HTTP/2 against the local Kinesis: https with ALPN h2 and the JVM's standard trust store, and
plain http with h2c prior knowledge.

The JVM side is SubscriptionProbe, a diagnostic main in the jar: it registers a consumer,
subscribes to the stream's one shard from TRIM_HORIZON through SubscriptionCursor, ends the
subscription after a first set of records, and reads the rest through a new subscription.
"""

import json
import os
import shutil
import subprocess
import threading
import uuid
from pathlib import Path

import pyspark
import pytest

import pyspark_kinesis
from streaming import make_records


def java():
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else shutil.which("java")


def probe_command(kinesis, stream, endpoint, expect, resubscribe_after, java_options=()):
    classpath = os.pathsep.join([pyspark_kinesis.jar_path(), str(Path(pyspark.__file__).parent / "jars" / "*")])
    return [
        java(),
        *java_options,
        "-cp",
        classpath,
        "io.github.sparkkinesis.efo.SubscriptionProbe",
        "--stream",
        stream,
        "--consumer",
        f"sparkkinesis_probe-{uuid.uuid4().hex[:8]}",
        "--region",
        kinesis.region,
        "--endpoint",
        endpoint,
        "--expect",
        str(expect),
        "--resubscribe-after",
        str(resubscribe_after),
        "--timeout-s",
        "90",
        "--deregister",
    ]


def run_probe(command, on_line=lambda line: None, timeout=150):
    """Runs the probe; calls on_line for each stdout line; returns (exit code, last line, stderr)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = process.stdout, process.stderr
    assert out is not None and err is not None
    errors = []
    reader = threading.Thread(target=lambda: errors.append(err.read()), daemon=True)
    reader.start()
    last = ""
    try:
        for line in out:
            last = line.strip() or last
            on_line(last)
        process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    reader.join(timeout=10)
    return process.returncode, last, "".join(errors)


@pytest.fixture
def one_shard_stream(kinesis):
    name = kinesis.create_stream(shards=1)
    try:
        yield name
    finally:
        kinesis.delete_stream(name)


@pytest.mark.parametrize("transport", ["https", "http"])
def test_subscribe_to_shard_reads_exactly_the_records_put_across_a_resubscription(kinesis, one_shard_stream, transport):
    if kinesis.tls_endpoint is None:
        pytest.skip("no local Kinesis: the https endpoint and its certificate are kinesis-mock's")
    if transport == "https":
        if kinesis.trust_store is None:
            pytest.skip("openssl and keytool are needed to make a trust store for the local Kinesis")
        endpoint, java_options = kinesis.tls_endpoint, kinesis.trust_store.java_options()
    else:
        endpoint, java_options = kinesis.endpoint, []

    first, second = make_records(25, tag="first"), make_records(25, tag="second")
    placed = kinesis.put_records(one_shard_stream, first)

    def put_second_batch(line):
        if '"subscription ended"' in line:
            placed.extend(kinesis.put_records(one_shard_stream, second))

    code, last, errors = run_probe(
        probe_command(kinesis, one_shard_stream, endpoint, expect=50, resubscribe_after=25, java_options=java_options),
        on_line=put_second_batch,
    )
    assert code == 0, f"probe failed:\n{errors[-3000:]}"
    result = json.loads(last)
    assert result["data"] == [data.decode() for _, data in first + second]
    assert result["sequenceNumbers"] == [seq for _, seq in placed]
    # The forced renewal, and on a loaded machine maybe one more after a time-out: each counted.
    assert result["subscriptions"] >= 2 and result["resubscriptions"] == result["subscriptions"] - 1
    assert result["position"] == f"AfterSequence({placed[-1][1]})"
    # The consumer was deregistered by the probe (--deregister).
    arn = kinesis.client.describe_stream_summary(StreamName=one_shard_stream)["StreamDescriptionSummary"]["StreamARN"]
    names = [
        c["ConsumerName"]
        for c in kinesis.client.list_stream_consumers(StreamARN=arn)["Consumers"]
        if c["ConsumerStatus"] != "DELETING"
    ]
    assert names == []


def test_https_without_the_certificate_in_the_trust_store_fails_clearly(kinesis, one_shard_stream):
    if kinesis.tls_endpoint is None:
        pytest.skip("no local Kinesis")
    code, _, errors = run_probe(probe_command(kinesis, one_shard_stream, kinesis.tls_endpoint, 1, 0))
    assert code == 1
    assert "ERROR: [KINESIS_TLS_UNTRUSTED]" in errors
    assert "unable to find valid certification path" in errors
