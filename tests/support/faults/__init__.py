# SPDX-License-Identifier: Apache-2.0
"""A fault-injecting Kinesis endpoint for the end-to-end tests.

kinesis-mock never throttles, never fails, never drops a connection and never signals the end of
a closed shard over SubscribeToShard. FaultProxy sits in front of it on 127.0.0.1 and makes it
do all of that on a schedule the test programs, counting what it injected so the test can
assert the faults really happened:

    from faults import FaultProxy, Fault
    proxy = FaultProxy(upstream=kinesis.endpoint, seed=1)   # or the `fault_proxy` fixture
    proxy.add(Fault.error("GetRecords", "ProvisionedThroughputExceededException", share=0.3))
    ... point the connector's `endpoint` option (or boto3's endpoint_url) at proxy.endpoint ...
    assert proxy.injected[("GetRecords", "ProvisionedThroughputExceededException")] > 0

One port serves HTTP/1.1 and HTTP/2 with prior knowledge (h2c), as the AWS SDK uses them:
HTTP/1.1 for the plain calls, HTTP/2 for SubscribeToShard. Bodies are read in JSON or CBOR,
whichever the client sends; errors are written as Kinesis writes them (status 400 with
x-amzn-ErrorType and __type; 500 InternalFailure; 503 ServiceUnavailable), so the SDK classifies
them as it would classify real ones. Upstream it speaks HTTP/1.1 to kinesis-mock's plain port
(SubscribeToShard works there too, as a chunked event stream), and re-sends the event stream
message by message.

Faults (selectors: exactly one of share=p, first=n, every=n; optional until=n; the first fault
added that fires wins; a refused request is never forwarded):
  Fault.error(op, code, ...)        refuse with that AWS error         injected[(op, code)]
  Fault.partial_put(...)            PutRecords entries fail in a 200;   injected[("PutRecords", "partial")]
                                    the selector picks entries          (failed entries)
  Fault.delay(op, seconds, ...)     wait, then forward                  injected[(op, "delay")]
  Fault.reset(op, ...)              forward, send half the response,    injected[(op, "reset")]
                                    drop the connection (h2: the stream)
  Fault.hang(op, seconds, ...)      say nothing, then close             injected[(op, "hang")]
  Fault.end_subscription_early(after_events=3, ...)   clean end         injected[("SubscribeToShard", "end_early")]
  Fault.cut_mid_event(after_events=1, ...)            half an event,    injected[("SubscribeToShard", "cut_mid_event")]
                                                      then drop

proxy.limits(True) enforces the per-shard limits of Kinesis (turn on before the reads start, it
follows shard iterators from GetShardIterator): GetRecords 5 calls/s and 2 MB/s per shard, PutRecord(s)
1000 records/s and 1 MB/s per shard (entries over it fail inside the 200), SubscribeToShard 1
call/s per consumer and shard (LimitExceededException) and none within 5 s of a successful one
(ResourceInUseException), event streams paced at 2 MB/s. Refusals count as injected[(op, "limit")].

proxy.emulate_shard_end(True) (the default): when a subscribed shard is closed upstream and the
subscriber has everything in it, the next (empty) upstream event is replaced by the event real
Kinesis ends with (ChildShards from ListShards, no ContinuationSequenceNumber) and the stream
ends; counted as injected[("SubscribeToShard", "shard_end")].

proxy.trim(stream, shard_id, sequence_number) emulates retention: iterators and subscriptions
that would start before that record (TRIM_HORIZON, or an older sequence number) start at it;
counted as injected[(op, "trimmed")].

proxy.expire(stream, shard_id) emulates a closed shard past the retention period: ListShards no
longer lists it, GetShardIterator and SubscribeToShard on it answer ResourceNotFoundException;
counted as injected[(op, "expired")].

proxy.refuse_expired_credentials(expiry_of) refuses requests signed with credentials past their
expiry (expiry_of: access key id -> epoch seconds or None) with ExpiredTokenException, as AWS does.

proxy.calls counts requests per operation, proxy.signed_by per (operation, access key id signed
with); proxy.clear() removes the faults; proxy.close() stops it.
"""

from .fault import Fault
from .proxy import FaultProxy

__all__ = ["Fault", "FaultProxy"]
