# SPDX-License-Identifier: Apache-2.0
"""End to end: enhanced fan-out with a consumer registered elsewhere (`consumerARN`). The query
reads with it as it is: the fault proxy in front of the local Kinesis counts the calls, and no
RegisterStreamConsumer or DeregisterStreamConsumer is among them."""

import pytest

from streaming import kinesis_reader, make_records, registered_elsewhere, run_available_now


def test_a_consumer_given_by_arn_is_read_with_and_never_registered_nor_deregistered(
    spark, kinesis, fault_proxy, tmp_path
):
    stream = kinesis.create_stream(shards=2)
    arn = registered_elsewhere(kinesis, stream)
    records = make_records(80)
    kinesis.put_records(stream, records)
    df = kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint, consumerMode="efo", consumerARN=arn)
    run_available_now(df, tmp_path / "out", tmp_path / "chk")

    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted((r.partitionKey, bytes(r.data)) for r in rows) == sorted(records)
    calls = fault_proxy.calls
    assert calls["SubscribeToShard"] >= 2 and calls["DescribeStreamConsumer"] >= 1
    assert calls["RegisterStreamConsumer"] == 0 and calls["DeregisterStreamConsumer"] == 0
    status = kinesis.client.describe_stream_consumer(ConsumerARN=arn)["ConsumerDescription"]["ConsumerStatus"]
    assert status == "ACTIVE", "the consumer is left as it was"


def test_a_consumer_arn_kinesis_does_not_know_fails_naming_the_option(spark, kinesis, stream, tmp_path):
    stream_arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    missing = f"{stream_arn}/consumer/never-registered:1700000000"
    with pytest.raises(Exception) as failure:
        run_available_now(
            kinesis_reader(spark, kinesis, stream, consumerMode="efo", consumerARN=missing),
            tmp_path / "out",
            tmp_path / "chk",
            timeout=120,
        )
    message = str(failure.value)
    assert "[KINESIS_EFO_CONSUMER_ARN_UNUSABLE]" in message and "option 'consumerARN'" in message
    assert "Kinesis has no such consumer" in message
