# SPDX-License-Identifier: Apache-2.0
"""End to end: the enhanced fan-out consumer of a running query is deregistered behind its back
(DeregisterStreamConsumer from boto3, as an operator cleaning up might). The query registers it
again, subscribes with the new consumer and goes on: every record once. In micro-batch mode
with a short consumerRefreshInterval; in real-time mode with the default interval of five
minutes, so only the tasks finding the consumer gone can make the query register it again.

The query reads through the fault proxy, which ends every subscription after a few events, so
the query subscribes again and again; Kinesis ends a deleted consumer's subscriptions too."""

import uuid

from realtime import committed_batches, deliveries, realtime_reader, start_realtime, wait_for

from faults import Fault
from streaming import KeyedProducer, kinesis_reader


def consumer_of(kinesis, stream, name):
    """(ARN, status) of the stream's consumer `name`, or None (boto3, independent of the connector)."""
    arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    found = [c for c in kinesis.client.list_stream_consumers(StreamARN=arn)["Consumers"] if c["ConsumerName"] == name]
    return (found[0]["ConsumerARN"], found[0]["ConsumerStatus"]) if found else None


def deregister_while_it_reads(kinesis, stream, full_name, query, rows_in_sink):
    """Deregisters the query's consumer once rows reach the sink (boto3, as an operator would),
    then waits until the query registered it again and more rows came through the new one."""
    stream_arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    wait_for(lambda: rows_in_sink() > 0, "the first records in the sink", query, timeout=120)
    first_arn, _ = consumer_of(kinesis, stream, full_name)
    kinesis.client.deregister_stream_consumer(StreamARN=stream_arn, ConsumerName=full_name)
    wait_for(
        lambda: (consumer_of(kinesis, stream, full_name) or (first_arn,))[0] != first_arn,
        "the consumer registered again",
        query,
        timeout=120,
    )
    seen = rows_in_sink()
    wait_for(lambda: rows_in_sink() > seen, "records read through the consumer registered again", query, timeout=120)


def test_a_consumer_deregistered_while_the_query_runs_is_registered_again_and_every_record_read_once(
    spark, kinesis, fault_proxy, tmp_path
):
    stream = kinesis.create_stream(shards=2)
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    full_name = f"sparkkinesis_{name}"
    out = tmp_path / "out"
    fault_proxy.add(Fault.end_subscription_early(after_events=5, every=1))

    query = (
        kinesis_reader(
            spark,
            kinesis,
            stream,
            endpoint=fault_proxy.endpoint,
            consumerMode="efo",
            consumerName=name,
            consumerRefreshInterval="1s",
            requireConsumerDeregistration="true",
            maxFetchDuration="500ms",
        )
        .selectExpr("CAST(data AS STRING) AS data")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )

    def sink_count():
        return spark.read.schema("data string").parquet(str(out)).count() if list(out.glob("*.parquet")) else 0

    producer = KeyedProducer(kinesis, stream)
    try:
        producer.start()
        deregister_while_it_reads(kinesis, stream, full_name, query, sink_count)
        producer.stop()
        wait_for(lambda: sink_count() >= len(producer.produced), "every record in the sink", query, timeout=120)
    finally:
        producer.halt.set()
        query.stop()

    rows = spark.read.parquet(str(out)).collect()
    assert sorted(r.data for r in rows) == sorted(d.decode() for _, d in producer.produced), "lost or repeated"
    assert fault_proxy.calls["RegisterStreamConsumer"] >= 2


def test_in_real_time_mode_a_deregistered_consumer_ends_the_batch_and_the_next_one_registers_it_again(
    spark, kinesis, fault_proxy, tmp_path, short_batches
):
    stream = kinesis.create_stream(shards=2)
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    full_name = f"sparkkinesis_{name}"
    sink, checkpoint = tmp_path / "sink", tmp_path / "checkpoint"
    fault_proxy.add(Fault.end_subscription_early(after_events=5, every=1))
    df = realtime_reader(
        spark,
        kinesis,
        stream,
        endpoint=fault_proxy.endpoint,
        consumerMode="efo",
        consumerName=name,
        requireConsumerDeregistration="true",
    )
    query = start_realtime(df, sink, checkpoint)
    producer = KeyedProducer(kinesis, stream)
    try:
        producer.start()
        deregister_while_it_reads(kinesis, stream, full_name, query, lambda: len(deliveries(sink)))
        producer.stop()
        produced = {d.decode() for _, d in producer.produced}
        wait_for(lambda: produced <= {r["data"] for r in deliveries(sink)}, "every record in the sink", query)
        batches = len(committed_batches(checkpoint))
        wait_for(lambda: len(committed_batches(checkpoint)) > batches, "a batch committed after the last record", query)
    finally:
        producer.halt.set()
        query.stop()

    got = [r["data"] for r in deliveries(sink)]
    assert sorted(got) == sorted(produced), "lost or repeated records"
    assert fault_proxy.calls["RegisterStreamConsumer"] >= 2
