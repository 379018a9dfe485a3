# SPDX-License-Identifier: Apache-2.0
"""End to end: an enhanced fan-out query on an assumed role whose credentials expire while its
subscriptions run. moto's STS issues six-second sessions (a test-only knob); the fault proxy in
front of the local Kinesis refuses, as AWS does, any request signed with credentials past their
expiry (kinesis-mock checks no signature), and ends every
subscription after a few events, so the query subscribes again many times across the sessions.
Each SubscribeToShard is signed with the credentials valid then; every record is read once."""

import time
import uuid

from realtime import wait_for

from faults import Fault
from streaming import KeyedProducer, kinesis_reader

SESSION_SECONDS_PROPERTY = "sparkkinesis.test.assumeRoleSessionSeconds"
SESSION_SECONDS = 6


class RoleExpiries:
    """When each access key moto's STS issued for a role expires at the latest (epoch seconds):
    SESSION_SECONDS after it was first seen here (moto reports no expiry; a key is issued before
    it is first used, so it has expired by then)."""

    def __init__(self, moto, role_arn):
        self.moto, self.role_arn, self.known = moto, role_arn, {}

    def __call__(self, access_key_id):
        if access_key_id not in self.known:
            for session in self.moto.assumed_roles(self.role_arn):
                self.known.setdefault(session["access_key_id"], time.time() + SESSION_SECONDS)
        return self.known.get(access_key_id)


def test_subscriptions_renew_with_fresh_role_credentials_as_each_session_expires(
    spark, kinesis, moto, fault_proxy, tmp_path
):
    base_key, base_secret, base_arn = moto.create_user(f"base-{uuid.uuid4().hex[:8]}", ["sts:AssumeRole"])
    role_arn = moto.create_role(f"reader-{uuid.uuid4().hex[:8]}", base_arn, ["kinesis:*"])
    expiries = RoleExpiries(moto, role_arn)
    fault_proxy.refuse_expired_credentials(expiries)
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
            awsAccessKey=base_key,
            awsSecretKey=base_secret,
            roleArn=role_arn,
            stsEndpoint=moto.endpoint,
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
    assert base_key not in signers, "Kinesis calls are signed with the role's credentials, never the base keys"
    assert fault_proxy.injected[("SubscribeToShard", "end_early")] >= 1, "no subscription was ended to be renewed"
