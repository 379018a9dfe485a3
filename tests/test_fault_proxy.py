# SPDX-License-Identifier: Apache-2.0
"""The fault-injecting endpoint (tests/support/faults/) itself: each fault kind is injected when its
selector says, counted, and looks to clients like what real Kinesis does: boto3 (JSON over
HTTP/1.1) for the plain calls, raw CBOR requests as the Java SDK sends them, an HTTP/2 client
for SubscribeToShard, and once the connector's own EFO code (SubscriptionProbe) through it."""

import http.client
import json
import time
import uuid
from urllib.parse import urlsplit

import boto3
import botocore.exceptions
import cbor2
import pytest
from botocore.config import Config

from faults import Fault, FaultProxy
from faults.h2client import Subscription
from streaming import read_all
from waiting import wait_for

THROTTLED = "ProvisionedThroughputExceededException"
TOP_HASH_KEY = 2**128 - 1


def client(kinesis, proxy, read_timeout=30):
    """boto3 through the proxy, without retries: each call is one request the proxy sees."""
    return boto3.client(
        "kinesis",
        endpoint_url=proxy.endpoint,
        region_name=kinesis.region,
        config=Config(
            retries={"total_max_attempts": 1, "mode": "standard"}, connect_timeout=5, read_timeout=read_timeout
        ),
    )


def raw_call(proxy, operation, document, cbor=False):
    """One request as the Java SDK sends it (CBOR) or JSON; returns (status, headers, decoded body)."""
    content_type = "application/x-amz-cbor-1.1" if cbor else "application/x-amz-json-1.1"
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    conn = http.client.HTTPConnection(urlsplit(proxy.endpoint).netloc, timeout=30)
    try:
        conn.request(
            "POST",
            "/",
            body=cbor2.dumps(document) if cbor else json.dumps(document),
            headers={
                "Content-Type": content_type,
                "X-Amz-Target": f"Kinesis_20131202.{operation}",
                "X-Amz-Date": stamp,
                "Authorization": f"AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/{stamp[:8]}/us-east-1/kinesis/"
                f"aws4_request, SignedHeaders=host;x-amz-date, Signature={'0' * 64}",
            },
        )
        response = conn.getresponse()
        body = response.read()
        headers = {k.lower(): v for k, v in response.getheaders()}
        return response.status, headers, cbor2.loads(body) if cbor else json.loads(body)
    finally:
        conn.close()


def records_in(kinesis, stream):
    """(partition key, data) of every record in the stream, read directly (not through the proxy)."""
    return sorted((key, data) for _, key, data in read_all(kinesis, stream))


def error_of(call):
    with pytest.raises(botocore.exceptions.ClientError) as caught:
        call()
    return caught.value.response


# -- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code,status",
    [(THROTTLED, 400), ("LimitExceededException", 400), ("InternalFailure", 500), ("ServiceUnavailable", 503)],
)
def test_an_error_reaches_boto3_as_the_aws_error_and_the_records_are_not_written(
    kinesis, fault_proxy, stream, code, status
):
    fault_proxy.add(Fault.error("PutRecords", code, first=1))
    kinesis_via_proxy = client(kinesis, fault_proxy)
    records = [{"PartitionKey": "a", "Data": b"1"}]

    response = error_of(lambda: kinesis_via_proxy.put_records(StreamName=stream, Records=records))
    assert response["Error"]["Code"] == code
    assert response["ResponseMetadata"]["HTTPStatusCode"] == status
    assert fault_proxy.injected == {("PutRecords", code): 1}
    assert records_in(kinesis, stream) == []

    kinesis_via_proxy.put_records(StreamName=stream, Records=records)  # the next one goes through
    assert records_in(kinesis, stream) == [("a", b"1")]
    assert fault_proxy.calls["PutRecords"] == 2


def test_boto3_retries_what_the_sdk_retries_and_gives_up_on_an_expired_iterator(kinesis, fault_proxy, stream):
    retrying = boto3.client(
        "kinesis",
        endpoint_url=fault_proxy.endpoint,
        region_name=kinesis.region,
        config=Config(retries={"total_max_attempts": 3, "mode": "standard"}),
    )
    fault_proxy.add(Fault.error("ListShards", "InternalFailure", first=2))
    assert len(retrying.list_shards(StreamName=stream)["Shards"]) == 2
    assert fault_proxy.calls["ListShards"] == 3

    iterator = retrying.get_shard_iterator(
        StreamName=stream, ShardId="shardId-000000000000", ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    fault_proxy.add(Fault.error("GetRecords", "ExpiredIteratorException", first=1))
    with pytest.raises(retrying.exceptions.ExpiredIteratorException):
        retrying.get_records(ShardIterator=iterator)
    assert fault_proxy.calls["GetRecords"] == 1, "not retried: the iterator must be renewed"
    assert fault_proxy.injected == {("ListShards", "InternalFailure"): 2, ("GetRecords", "ExpiredIteratorException"): 1}


def test_a_cbor_request_gets_a_cbor_error_with_the_aws_error_type(fault_proxy, stream):
    fault_proxy.add(Fault.error("GetShardIterator", THROTTLED, first=1))
    status, headers, body = raw_call(
        fault_proxy,
        "GetShardIterator",
        {"StreamName": stream, "ShardId": "shardId-000000000000", "ShardIteratorType": "LATEST"},
        cbor=True,
    )
    assert status == 400
    assert headers["x-amzn-errortype"] == THROTTLED
    assert headers["content-type"] == "application/x-amz-cbor-1.1"
    assert body["__type"] == THROTTLED and "fault proxy" in body["message"]


# -- selectors ------------------------------------------------------------------------------------


def test_selectors_pick_first_every_share_until_in_the_order_faults_were_added(kinesis, fault_proxy):
    kinesis_via_proxy = client(kinesis, fault_proxy)

    def outcomes(n):
        codes = []
        for _ in range(n):
            try:
                kinesis_via_proxy.list_streams()
                codes.append(None)
            except botocore.exceptions.ClientError as e:
                codes.append(e.response["Error"]["Code"])
        return codes

    fault_proxy.add(Fault.error("ListStreams", "LimitExceededException", first=2))
    fault_proxy.add(Fault.error("ListStreams", "InternalFailure", every=3))
    assert outcomes(8) == [
        "LimitExceededException",
        "LimitExceededException",
        None,
        None,
        "InternalFailure",
        None,
        None,
        "InternalFailure",
    ]

    fault_proxy.clear()
    fault_proxy.add(Fault.error("ListStreams", "ServiceUnavailable", share=1.0, until=3))
    assert outcomes(5) == ["ServiceUnavailable"] * 3 + [None] * 2

    fault_proxy.clear()
    fault_proxy.add(Fault.error("ListStreams", THROTTLED, share=0.5))
    thrown = outcomes(40).count(THROTTLED)
    assert 5 < thrown < 35
    assert fault_proxy.injected == {
        ("ListStreams", "LimitExceededException"): 2,
        ("ListStreams", "InternalFailure"): 2,
        ("ListStreams", "ServiceUnavailable"): 3,
        ("ListStreams", THROTTLED): thrown,
    }
    assert fault_proxy.calls["ListStreams"] == 53


def test_bad_faults_are_refused_naming_the_argument():
    with pytest.raises(ValueError, match="exactly one selector"):
        Fault.error("GetRecords", THROTTLED)
    with pytest.raises(ValueError, match="exactly one selector"):
        Fault.error("GetRecords", THROTTLED, first=1, share=0.5)
    with pytest.raises(ValueError, match="share must be a probability"):
        Fault.delay("GetRecords", 1, share=2)
    with pytest.raises(ValueError, match="'GetRecord' is not a Kinesis operation"):
        Fault.reset("GetRecord", first=1)
    with pytest.raises(ValueError, match="upstream must be a plain http"):
        FaultProxy(upstream="https://127.0.0.1:1")


# -- partial writes, delays, resets, hangs ------------------------------------------------------------


@pytest.mark.parametrize("cbor", [False, True], ids=["json", "cbor"])
def test_a_partial_put_fails_the_picked_entries_inside_a_200_and_writes_only_the_others(
    kinesis, fault_proxy, stream, cbor
):
    fault_proxy.add(Fault.partial_put(every=2))
    entries = [{"PartitionKey": f"k{i}", "Data": f"d{i}".encode()} for i in range(6)]
    if not cbor:
        answer = client(kinesis, fault_proxy).put_records(StreamName=stream, Records=entries)
    else:
        status, _, answer = raw_call(fault_proxy, "PutRecords", {"StreamName": stream, "Records": entries}, cbor=True)
        assert status == 200

    assert answer["FailedRecordCount"] == 3
    codes = [r.get("ErrorCode") for r in answer["Records"]]
    assert codes == [None, THROTTLED] * 3
    assert all(r["SequenceNumber"] and r["ShardId"] for r in answer["Records"][0::2])
    refused = answer["Records"][1::2]
    assert all("Rate exceeded for shard shardId-" in r["ErrorMessage"] for r in refused), answer["Records"]
    assert records_in(kinesis, stream) == [(f"k{i}", f"d{i}".encode()) for i in (0, 2, 4)]
    assert fault_proxy.injected == {("PutRecords", "partial"): 3}


def test_a_delay_holds_the_call_then_forwards_it(kinesis, fault_proxy, stream):
    fault_proxy.add(Fault.delay("DescribeStreamSummary", seconds=1.5, first=1))
    started = time.monotonic()
    summary = client(kinesis, fault_proxy).describe_stream_summary(StreamName=stream)
    assert time.monotonic() - started >= 1.5
    assert summary["StreamDescriptionSummary"]["StreamName"] == stream
    assert fault_proxy.injected == {("DescribeStreamSummary", "delay"): 1}


def test_a_reset_drops_the_connection_in_the_middle_of_the_response(fault_proxy, stream):
    fault_proxy.add(Fault.reset("ListShards", first=1))
    with pytest.raises(http.client.IncompleteRead):
        raw_call(fault_proxy, "ListShards", {"StreamName": stream})
    status, _, body = raw_call(fault_proxy, "ListShards", {"StreamName": stream})
    assert status == 200 and len(body["Shards"]) == 2
    assert fault_proxy.injected == {("ListShards", "reset"): 1}


def test_a_hang_says_nothing_then_closes_and_writes_nothing(kinesis, fault_proxy, stream):
    fault_proxy.add(Fault.hang("PutRecords", seconds=3, first=2))
    impatient = client(kinesis, fault_proxy, read_timeout=1)
    with pytest.raises(botocore.exceptions.ReadTimeoutError):
        impatient.put_records(StreamName=stream, Records=[{"PartitionKey": "a", "Data": b"1"}])
    with pytest.raises(botocore.exceptions.ConnectionClosedError):
        client(kinesis, fault_proxy).put_records(StreamName=stream, Records=[{"PartitionKey": "b", "Data": b"2"}])
    assert records_in(kinesis, stream) == []
    assert fault_proxy.injected == {("PutRecords", "hang"): 2}


# -- limits ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def five_mb_stream(kinesis):
    """A 1-shard stream holding five records of 1 MB each, shared by the read-limit tests."""
    stream = kinesis.create_stream(shards=1)
    kinesis.put_records(stream, [(f"big-{i}", bytes([i]) * 1_000_000) for i in range(5)])
    yield stream
    kinesis.delete_stream(stream)


def test_get_records_limits_refuse_over_five_calls_a_second_and_after_reading_more_than_2_mb(
    kinesis, fault_proxy, five_mb_stream
):
    fault_proxy.limits(True)
    kinesis_via_proxy = client(kinesis, fault_proxy)
    iterator = kinesis_via_proxy.get_shard_iterator(
        StreamName=five_mb_stream, ShardId="shardId-000000000000", ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    page = kinesis_via_proxy.get_records(ShardIterator=iterator, Limit=10000)
    assert len(page["Records"]) == 5
    # 5 MB read: the shard owes 3 MB, paid off at 2 MB/s; until then every read is refused.
    response = error_of(lambda: kinesis_via_proxy.get_records(ShardIterator=page["NextShardIterator"]))
    assert response["Error"]["Code"] == THROTTLED

    # Read again once the debt is paid (about 1.5 s); refusals while it is owed count too.
    while_in_debt = []

    def debt_paid():
        try:
            kinesis_via_proxy.get_records(ShardIterator=page["NextShardIterator"])
            return True
        except kinesis_via_proxy.exceptions.ProvisionedThroughputExceededException:
            while_in_debt.append(1)
            return False

    wait_for(debt_paid, what="a read let through once the shard paid off its 3 MB", timeout=30, every=0.5)
    refused, started = len(while_in_debt), time.monotonic()
    for _ in range(15):
        try:
            kinesis_via_proxy.get_records(ShardIterator=page["NextShardIterator"])
        except kinesis_via_proxy.exceptions.ProvisionedThroughputExceededException:
            refused += 1
    elapsed = time.monotonic() - started
    # At most 5 calls are let through in any second.
    assert 15 - (refused - len(while_in_debt)) <= 5 * (int(elapsed) + 1)
    assert fault_proxy.injected == {("GetRecords", "limit"): refused + 1}


def test_subscription_events_are_paced_at_2_mb_per_second(kinesis, fault_proxy, five_mb_stream):
    consumer_arn = register_consumer(kinesis, five_mb_stream)
    fault_proxy.limits(True)
    started, sent, records = time.monotonic(), 0, 0
    with subscribe(kinesis, fault_proxy, consumer_arn) as s:
        for message in s.messages():
            sent += len(message.raw)
            records += len(json.loads(message.payload)["Records"])
            if records == 5:
                break
    elapsed = time.monotonic() - started
    # The bucket holds one second's worth (2 MiB) at the start; the rest comes at 2 MiB/s.
    assert elapsed >= (sent - 2 * 1024 * 1024) / (2 * 1024 * 1024)
    assert sent > 6_000_000, "five 1 MB records, base64 in JSON"


def test_put_limits_fail_the_entries_over_1_mb_or_1000_records_a_second_per_shard(kinesis, fault_proxy, stream):
    fault_proxy.limits(True)
    kinesis_via_proxy = client(kinesis, fault_proxy)
    # Both to the first shard (explicit hash key 0): 1.2 MB in one second is over its 1 MB.
    answer = kinesis_via_proxy.put_records(
        StreamName=stream,
        Records=[
            {"PartitionKey": "a", "Data": b"a" * 600_000, "ExplicitHashKey": "0"},
            {"PartitionKey": "b", "Data": b"b" * 600_000, "ExplicitHashKey": "0"},
        ],
    )
    assert [r.get("ErrorCode") for r in answer["Records"]] == [None, THROTTLED]

    # The other shard has its own limit: 1000 records in a second pass, the rest fail.
    started, failed = time.monotonic(), 0
    for batch in range(3):
        answer = kinesis_via_proxy.put_records(
            StreamName=stream,
            Records=[
                {"PartitionKey": f"{batch}-{i}", "Data": b"x", "ExplicitHashKey": str(TOP_HASH_KEY)} for i in range(500)
            ],
        )
        failed += answer["FailedRecordCount"]
    elapsed = time.monotonic() - started
    assert failed >= 1500 - 1000 * (1 + elapsed)
    assert fault_proxy.injected == {("PutRecords", "limit"): failed + 1}
    assert len(records_in(kinesis, stream)) == 1 + 1500 - failed


# -- SubscribeToShard over HTTP/2 --------------------------------------------------------------------


def register_consumer(kinesis, stream):
    """An ACTIVE consumer of the stream, registered directly (not through the proxy); its ARN."""
    arn = kinesis.client.describe_stream_summary(StreamName=stream)["StreamDescriptionSummary"]["StreamARN"]
    consumer_arn = kinesis.client.register_stream_consumer(StreamARN=arn, ConsumerName=f"probe-{uuid.uuid4().hex[:6]}")[
        "Consumer"
    ]["ConsumerARN"]
    deadline = time.monotonic() + 30
    while (
        kinesis.client.describe_stream_consumer(ConsumerARN=consumer_arn)["ConsumerDescription"]["ConsumerStatus"]
        != "ACTIVE"
    ):
        assert time.monotonic() < deadline, "consumer not ACTIVE"
        time.sleep(0.2)
    return consumer_arn


@pytest.fixture
def consumer(kinesis):
    """(stream, consumer ARN) for a fresh 1-shard stream with 5 records."""
    stream = kinesis.create_stream(shards=1)
    try:
        kinesis.put_records(stream, [(f"k{i}", f"d{i}".encode()) for i in range(5)])
        yield stream, register_consumer(kinesis, stream)
    finally:
        kinesis.delete_stream(stream)


def subscribe(kinesis, proxy, consumer_arn, shard="shardId-000000000000", **kwargs):
    """A subscription through the proxy, retried while kinesis-mock still holds a dropped one
    (it frees a subscription a second or two after its connection went away, and says so in
    an exception message inside a 200)."""
    deadline = time.monotonic() + 30
    while True:
        s = Subscription(proxy.endpoint, kinesis.region, consumer_arn, shard, **kwargs)
        first = s.peek() if s.status == 200 else None
        if first is None or first.message_type != "exception" or time.monotonic() > deadline:
            return s
        s.close()
        time.sleep(0.5)


def test_end_subscription_early_ends_the_http2_stream_cleanly_after_n_events(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    fault_proxy.add(Fault.end_subscription_early(after_events=2, first=1))
    with subscribe(kinesis, fault_proxy, consumer_arn) as s:
        events = list(s.messages())
    assert s.status == 200 and s.headers["content-type"] == "application/vnd.amazon.eventstream"
    assert [m.event_type for m in events] == ["SubscribeToShardEvent"] * 2
    assert s.outcome == "ended" and s.leftover == 0
    assert fault_proxy.injected == {("SubscribeToShard", "end_early"): 1}


def test_cut_mid_event_resets_the_http2_stream_inside_an_event(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    fault_proxy.add(Fault.cut_mid_event(after_events=1, first=1))
    with subscribe(kinesis, fault_proxy, consumer_arn, cbor=True) as s:
        events = list(s.events())
    assert [r["PartitionKey"] for e in events for r in e["Records"]] == [f"k{i}" for i in range(5)]
    assert s.outcome == "reset"
    assert s.leftover > 0, "part of the second event arrived"
    assert fault_proxy.injected == {("SubscribeToShard", "cut_mid_event"): 1}


def test_subscribe_errors_and_limits_answer_before_the_stream(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    fault_proxy.add(Fault.error("SubscribeToShard", "ResourceInUseException", first=1))
    with Subscription(fault_proxy.endpoint, kinesis.region, consumer_arn, "shardId-000000000000") as s:
        assert s.status == 400
        assert s.headers["x-amzn-errortype"] == "ResourceInUseException"
        assert s.error["__type"] == "ResourceInUseException"

    fault_proxy.limits(True)
    subscribe(kinesis, fault_proxy, consumer_arn).close()

    def refusal():
        with Subscription(fault_proxy.endpoint, kinesis.region, consumer_arn, "shardId-000000000000") as s:
            assert s.status == 400
            return s.error["__type"]

    # At once: over 1 call/s; after a second: within 5 s of the last success.
    assert refusal() in ("LimitExceededException", "ResourceInUseException")
    refused = time.monotonic()
    wait_for(lambda: time.monotonic() - refused >= 1.2, what="1.2 s past the refused call", every=0.1)
    assert refusal() == "ResourceInUseException"
    assert fault_proxy.injected == {("SubscribeToShard", "ResourceInUseException"): 1, ("SubscribeToShard", "limit"): 2}


def test_a_closed_shard_read_to_its_end_gets_the_final_event_with_child_shards(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    kinesis.client.split_shard(StreamName=stream, ShardToSplit="shardId-000000000000", NewStartingHashKey=str(2**127))
    kinesis.wait_active(stream)
    children = {
        s["ShardId"]: s["HashKeyRange"]
        for s in kinesis.client.list_shards(StreamName=stream)["Shards"]
        if s.get("ParentShardId") == "shardId-000000000000"
    }

    with subscribe(kinesis, fault_proxy, consumer_arn) as s:
        events = list(s.events())
    assert [r["PartitionKey"] for e in events for r in e["Records"]] == [f"k{i}" for i in range(5)]
    final = events[-1]
    assert final["Records"] == [] and "ContinuationSequenceNumber" not in final
    assert {c["ShardId"]: c["HashKeyRange"] for c in final["ChildShards"]} == children
    assert all(c["ParentShards"] == ["shardId-000000000000"] for c in final["ChildShards"])
    assert s.outcome == "ended"
    assert fault_proxy.injected == {("SubscribeToShard", "shard_end"): 1}


def test_without_shard_end_emulation_a_closed_shard_streams_on_like_kinesis_mock(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    kinesis.client.split_shard(StreamName=stream, ShardToSplit="shardId-000000000000", NewStartingHashKey=str(2**127))
    kinesis.wait_active(stream)
    fault_proxy.emulate_shard_end(False)
    with subscribe(kinesis, fault_proxy, consumer_arn) as s:
        events = s.events()
        later = [next(events) for _ in range(3)][1:]  # after the one with the records
    assert [e["Records"] for e in later] == [[], []]
    assert all(e.get("ContinuationSequenceNumber") and not e.get("ChildShards") for e in later)
    assert not fault_proxy.injected


def test_a_merged_shard_ends_with_the_child_naming_both_parents(kinesis, fault_proxy):
    stream = kinesis.create_stream(shards=2)
    try:
        consumer_arn = register_consumer(kinesis, stream)
        kinesis.client.merge_shards(
            StreamName=stream, ShardToMerge="shardId-000000000000", AdjacentShardToMerge="shardId-000000000001"
        )
        kinesis.wait_active(stream)
        with subscribe(kinesis, fault_proxy, consumer_arn, shard="shardId-000000000001") as s:
            events = list(s.events())
        parents = [c["ParentShards"] for c in events[-1]["ChildShards"]]
        assert parents == [["shardId-000000000000", "shardId-000000000001"]]
        assert s.outcome == "ended"
    finally:
        kinesis.delete_stream(stream)


# -- the connector's own EFO code through the proxy ---------------------------------------------------


def test_the_connectors_subscription_rides_out_faults_and_ends_with_the_split_shard(kinesis, fault_proxy):
    """SubscriptionProbe (the shaded jar, the AWS SDK's HTTP/2 client, CBOR) reads a split shard
    through the proxy: a refused subscription, then one cut inside its first event, then the
    records, then the emulated final event: the shard is read to its end."""
    from test_efo_subscription import probe_command, run_probe

    stream = kinesis.create_stream(shards=1)
    try:
        placed = kinesis.put_records(stream, [(f"k{i}", f"record-{i}".encode()) for i in range(30)])
        kinesis.client.split_shard(
            StreamName=stream, ShardToSplit="shardId-000000000000", NewStartingHashKey=str(2**127)
        )
        kinesis.wait_active(stream)
        fault_proxy.add(Fault.error("SubscribeToShard", "ResourceInUseException", first=1))
        fault_proxy.add(Fault.cut_mid_event(after_events=0, first=1))

        code, last, errors = run_probe(
            probe_command(kinesis, stream, fault_proxy.endpoint, expect=1000, resubscribe_after=0)
        )
        assert code == 0, f"probe failed:\n{errors[-3000:]}"
        result = json.loads(last)
        assert result["data"] == [f"record-{i}" for i in range(30)]
        assert result["position"] == f"ShardEnd(Some({placed[-1][1]}))"
        assert fault_proxy.injected == {
            ("SubscribeToShard", "ResourceInUseException"): 1,
            ("SubscribeToShard", "cut_mid_event"): 1,
            ("SubscribeToShard", "shard_end"): 1,
        }
        assert fault_proxy.calls["SubscribeToShard"] == 3
    finally:
        kinesis.delete_stream(stream)


def test_a_reset_of_a_subscription_cuts_its_first_event(kinesis, fault_proxy, consumer):
    stream, consumer_arn = consumer
    fault_proxy.add(Fault.reset("SubscribeToShard", first=1))
    with subscribe(kinesis, fault_proxy, consumer_arn) as s:
        assert list(s.messages()) == []
    assert s.status == 200 and s.outcome == "reset" and s.leftover > 0
    assert fault_proxy.injected == {("SubscribeToShard", "reset"): 1}
