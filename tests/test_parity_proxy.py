# SPDX-License-Identifier: Apache-2.0
"""End to end: the proxy options (proxyHost, proxyPort, proxyUsername, proxyPassword). A polling
read, an enhanced fan-out read and a write go through a forward proxy that requires Basic
authentication (tests/support/forward_proxy.py): every record arrives, and the proxy saw the calls, the
HTTP/1.1 ones forwarded one by one, SubscribeToShard's HTTP/2 through a CONNECT tunnel."""

import uuid

import pytest
from forward_proxy import ForwardProxy

from streaming import kinesis_reader, kinesis_writer, make_records, read_all, run_available_now

PASSWORD = "proxy-e2e-password"


@pytest.fixture
def proxy(kinesis):
    if not kinesis.endpoint.startswith("http://127.0.0.1"):
        pytest.skip("the proxy test forwards to the local plain http Kinesis")
    with ForwardProxy("reader", PASSWORD) as p:
        yield p


def through(proxy):
    return {
        "proxyHost": "127.0.0.1",
        "proxyPort": str(proxy.port),
        "proxyUsername": "reader",
        "proxyPassword": PASSWORD,
    }


def read_back(spark, df, tmp_path):
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    return sorted((r.partitionKey, bytes(r.data)) for r in spark.read.parquet(str(tmp_path / "out")).collect())


def test_a_polling_read_goes_through_the_proxy(spark, kinesis, stream, proxy, tmp_path):
    records = make_records(60)
    kinesis.put_records(stream, records)
    assert read_back(spark, kinesis_reader(spark, kinesis, stream, **through(proxy)), tmp_path) == sorted(records)
    forwarded = proxy.forwarded
    assert forwarded["ListShards"] > 0 and forwarded["GetShardIterator"] > 0 and forwarded["GetRecords"] > 0
    assert proxy.refused == 0, "every request carried the proxy's credentials"


def test_an_efo_read_subscribes_through_a_tunnel_of_the_proxy(spark, kinesis, stream, proxy, tmp_path):
    records = make_records(60)
    kinesis.put_records(stream, records)
    df = kinesis_reader(
        spark,
        kinesis,
        stream,
        consumerMode="efo",
        consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
        requireConsumerDeregistration="true",
        **through(proxy),
    )
    assert read_back(spark, df, tmp_path) == sorted(records)
    assert proxy.forwarded["RegisterStreamConsumer"] == 1
    assert proxy.forwarded["DeregisterStreamConsumer"] == 1
    endpoint = kinesis.endpoint.removeprefix("http://").rstrip("/")
    assert proxy.tunnels[endpoint] >= 1, f"no CONNECT tunnel to {endpoint}: {proxy.tunnels}"
    assert proxy.refused == 0


def test_a_write_goes_through_the_proxy(spark, kinesis, stream, proxy):
    records = make_records(40)
    df = spark.createDataFrame(records, "partitionKey string, data binary")
    kinesis_writer(df, kinesis, stream, **through(proxy)).save()
    assert sorted((k, bytes(d)) for _, k, d in read_all(kinesis, stream)) == sorted(records)
    assert proxy.forwarded["PutRecords"] >= 1
    assert proxy.refused == 0


def test_without_the_proxys_credentials_nothing_goes_through(spark, kinesis, stream, proxy, tmp_path):
    options = {**through(proxy), "proxyPassword": "not-the-Pw-5e7"}
    with pytest.raises(Exception) as failure:  # noqa: B017 - what the message says is checked below
        run_available_now(
            kinesis_reader(spark, kinesis, stream, **options), tmp_path / "out", tmp_path / "chk", timeout=180
        )
    assert f"[KINESIS_PROXY_REFUSED] The HTTP proxy 127.0.0.1:{proxy.port} refused Kinesis ListShards" in str(
        failure.value
    )
    assert "not-the-Pw-5e7" not in str(failure.value), "the password given is not repeated"
    assert proxy.refused > 0
    assert sum(proxy.forwarded.values()) == 0
