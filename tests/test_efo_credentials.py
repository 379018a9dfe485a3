# SPDX-License-Identifier: Apache-2.0
"""End to end: an enhanced fan-out query on an assumed role whose credentials expire while its
subscriptions run. moto's STS issues six-second sessions (a test-only knob); the fault proxy in
front of the local Kinesis refuses, as AWS does, any request signed with credentials past their
expiry (kinesis-mock checks no signature), and ends every
subscription after a few events, so the query subscribes again many times across the sessions.
Each SubscribeToShard is signed with the credentials valid then; every record is read once."""

import uuid

from expiring_roles import SESSION_SECONDS, SESSION_SECONDS_PROPERTY, expiring_role
from realtime import wait_for

from faults import Fault
from streaming import KeyedProducer, kinesis_reader


def test_subscriptions_renew_with_fresh_role_credentials_as_each_session_expires(
    spark, kinesis, moto, fault_proxy, tmp_path
):
    role_options, expiries = expiring_role(moto, fault_proxy, "reader")
    fault_proxy.add(Fault.end_subscription_early(after_events=3, every=1))
    stream = kinesis.create_stream(shards=2)
    out = tmp_path / "out"

    jvm_system = spark.sparkContext._jvm.java.lang.System
    jvm_system.setProperty(SESSION_SECONDS_PROPERTY, str(SESSION_SECONDS))
    try:
        df = kinesis_reader(
            spark,
            kinesis,
            stream,
            endpoint=fault_proxy.endpoint,
            consumerMode="efo",
            consumerName=f"e2e-{uuid.uuid4().hex[:8]}",
            requireConsumerDeregistration="true",
            **role_options,
            maxFetchDuration="500ms",
        )
    finally:
        jvm_system.clearProperty(SESSION_SECONDS_PROPERTY)
    query = (
        df.selectExpr("CAST(data AS STRING) AS data")
        .writeStream.format("parquet")
        .option("path", str(out))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="500 milliseconds")
        .start()
    )

    def sink_count():
        return spark.read.schema("data string").parquet(str(out)).count() if list(out.glob("*.parquet")) else 0

    def subscribed_with():
        """The role's access keys SubscribeToShard calls were signed with."""
        return {key for (op, key), _ in fault_proxy.signed_by.items() if op == "SubscribeToShard" and expiries(key)}

    producer = KeyedProducer(kinesis, stream)
    try:
        producer.start()
        wait_for(lambda: sink_count() > 0, "the first records in the sink", query, timeout=150)
        # Subscriptions opened under three sessions: each of the first two expired meanwhile.
        wait_for(
            lambda: len(subscribed_with()) >= 3,
            "subscriptions signed with three sessions' credentials",
            query,
            timeout=150,
        )
        producer.stop()
        wait_for(lambda: sink_count() >= len(producer.produced), "every record in the sink", query, timeout=150)
    finally:
        producer.halt.set()
        query.stop()

    rows = spark.read.parquet(str(out)).collect()
    assert sorted(r.data for r in rows) == sorted(d.decode() for _, d in producer.produced), "lost or repeated"
    signers = {key for (_, key), _ in fault_proxy.signed_by.items()}
    base_key = role_options["awsAccessKey"]
    assert base_key not in signers, "Kinesis calls are signed with the role's credentials, never the base keys"
    assert fault_proxy.injected[("SubscribeToShard", "end_early")] >= 1, "no subscription was ended to be renewed"
