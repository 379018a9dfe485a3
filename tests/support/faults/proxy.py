# SPDX-License-Identifier: Apache-2.0
"""FaultProxy: the handler that decides, per request, what to inject, forwards the rest to the
upstream Kinesis, and counts what it did. Runs an asyncio loop in a daemon thread."""

import asyncio
import collections
import json
import logging
import random
import threading
import time
from collections import OrderedDict

import cbor2

from . import awsbody, eventstream
from .expired import ExpiredShards
from .fault import Fault
from .limits import Limits
from .server import Cut, Reply, Request, Server
from .shards import ShardMap, access_key_of, auth_of
from .upstream import Upstream

log = logging.getLogger("faults")

THROTTLED = "ProvisionedThroughputExceededException"
STREAM_FAULTS = ("end_early", "cut")
MAX_TRACKED_ITERATORS = 200_000


class FaultProxy:
    """A fault-injecting Kinesis endpoint on 127.0.0.1 in front of `upstream` (see the package docstring)."""

    def __init__(self, upstream, seed=0):
        self._upstream = Upstream(upstream)
        self._rng = random.Random(seed)
        self._faults = []
        self._lock = threading.Lock()
        self._limits_on, self._limits = False, Limits()
        self._emulate_shard_end = True
        self._trimmed = {}  # (stream, shard) -> the oldest sequence number left
        self._expired = ExpiredShards()
        self._expiry_of = None  # access key id -> when its credentials expire (epoch seconds), or None
        self._shards = ShardMap(self._upstream)
        self._iterators = OrderedDict()  # shard iterator -> (stream, shard), for per-shard limits
        self._injected, self._calls = collections.Counter(), collections.Counter()
        self._signed_by = collections.Counter()  # (operation, access key id) -> requests
        self._counts_lock = threading.Lock()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="fault-proxy", daemon=True)
        self._thread.start()
        self._server = Server(self._handle)
        port = asyncio.run_coroutine_threadsafe(self._server.start(), self._loop).result(30)
        self.endpoint = f"http://127.0.0.1:{port}"

    # -- the test's side -------------------------------------------------------------------------

    @property
    def injected(self):
        """Counter (operation, kind) -> times injected; a snapshot, safe to read while requests run."""
        with self._counts_lock:
            return collections.Counter(self._injected)

    @property
    def calls(self):
        """Counter operation -> requests seen (a snapshot)."""
        with self._counts_lock:
            return collections.Counter(self._calls)

    @property
    def signed_by(self):
        """Counter (operation, access key id the request was signed with) -> requests (a snapshot)."""
        with self._counts_lock:
            return collections.Counter(self._signed_by)

    def add(self, fault):
        if not isinstance(fault, Fault):
            raise TypeError(f"add() takes a Fault (Fault.error(...), Fault.delay(...), ...), got {fault!r}")
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear(self):
        with self._lock:
            self._faults = []

    def limits(self, on=True):
        self._limits_on = bool(on)

    def emulate_shard_end(self, on=True):
        self._emulate_shard_end = bool(on)

    def trim(self, stream, shard_id, sequence_number):
        """Emulates retention: the records of the shard before `sequence_number` are gone. Shard
        iterators and subscriptions that would start before it (TRIM_HORIZON, or at or after an
        older record) start at it instead, as Kinesis starts them at its trim horizon; counted as
        injected[(op, "trimmed")]."""
        with self._lock:
            self._trimmed[(stream, shard_id)] = int(sequence_number)

    def refuse_expired_credentials(self, expiry_of):
        """Refuse requests signed with credentials past their expiry, as AWS does, with
        ExpiredTokenException; counted as injected[(op, "ExpiredTokenException")]. `expiry_of`
        maps an access key id to when its credentials expire (epoch seconds), or None (never);
        it is called off the proxy's loop, so it may block."""
        self._expiry_of = expiry_of

    def expire(self, stream, shard_id):
        """Emulates a closed shard past the stream's retention (see expired.py): ListShards no
        longer lists it, and GetShardIterator and SubscribeToShard on it are refused with
        ResourceNotFoundException, counted as injected[(op, "expired")]."""
        self._expired.add(stream, shard_id)

    def close(self):
        if self._loop.is_closed():
            return
        asyncio.run_coroutine_threadsafe(self._server.stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- deciding ----------------------------------------------------------------------------------

    def _pick(self, operation, kinds):
        """The first fault for this operation, among `kinds`, that fires."""
        with self._lock:
            faults = [f for f in self._faults if f.operation == operation and f.kind in kinds]
        return next((f for f in faults if f.fires(self._rng)), None)

    def _count(self, operation, kind, n=1):
        with self._counts_lock:
            self._injected[(operation, kind)] += n

    def _error(self, request, operation, code, message, kind=None):
        self._count(operation, kind or code)
        status, headers, body = awsbody.error_reply(code, message, request.header("content-type"))
        return Reply(status, headers, body)

    async def _handle(self, request):
        operation = request.operation
        with self._counts_lock:
            self._calls[operation] += 1
            self._signed_by[(operation, access_key_of(request.headers))] += 1
        if self._expiry_of is not None and await self._expired_credentials(request):
            return self._error(
                request, operation, "ExpiredTokenException", "The security token included in the request is expired"
            )
        fault = self._pick(operation, ("error", "delay", "reset", "hang") + STREAM_FAULTS)
        if fault is not None and fault.kind not in STREAM_FAULTS:
            if fault.kind == "error":
                return self._error(request, operation, fault.code, f"{fault.code} injected by the fault proxy")
            if not (fault.kind == "reset" and operation == "SubscribeToShard"):  # counted when the cut happens
                self._count(operation, fault.counted_as)
            if fault.kind == "hang":
                return Reply(hang=fault.seconds)
            if fault.kind == "delay":
                await asyncio.sleep(fault.seconds)
        document = awsbody.decode(request.body, request.header("content-type"))
        if expired := self._expired.named_by(operation, document):
            return self._error(
                request,
                operation,
                "ResourceNotFoundException",
                f"Shard {expired[1]} in stream {expired[0]} does not exist",
                "expired",
            )
        if operation in ("GetShardIterator", "SubscribeToShard"):
            request, document = self._past_trim_horizon(request, document, operation)
        if operation == "SubscribeToShard":
            stream_fault = fault if fault is not None and fault.kind in STREAM_FAULTS else None
            if fault is not None and fault.kind == "reset":  # a reset of an event stream: cut in the first event
                stream_fault = Fault.cut_mid_event(after_events=0, first=1)
                stream_fault.counted_as = "reset"
            return await self._subscribe(request, document, stream_fault)
        if operation == "PutRecords":
            reply = await self._put_records(request, document)
        elif (
            operation == "PutRecord"
            and self._limits_on
            and (refused := await self._put_record_refused(request, document))
        ):
            return refused
        elif (
            operation == "GetRecords" and self._limits_on and (refused := self._get_records_refused(request, document))
        ):
            return refused
        elif operation == "ListShards":
            reply = Reply(*self._expired.listed(document, *await self._upstream.call(request.headers, request.body)))
        else:
            reply = Reply(*await self._upstream.call(request.headers, request.body))
        if reply.status == 200:
            self._track(operation, document, reply)
        reply.reset = fault is not None and fault.kind == "reset"
        return reply

    async def _expired_credentials(self, request):
        key, expiry_of = access_key_of(request.headers), self._expiry_of
        expires = key and expiry_of and await self._loop.run_in_executor(None, expiry_of, key)
        return expires is not None and expires < time.time()

    def _past_trim_horizon(self, request, document, operation):
        """The request, its start moved up to the trim horizon set by trim() when it was older."""
        with self._lock:
            oldest = self._trimmed.get((awsbody.stream_name(document), document.get("ShardId")))
        start = document.get("StartingPosition") if operation == "SubscribeToShard" else document
        if oldest is None or start is None:
            return request, document
        kind = start.get("Type" if operation == "SubscribeToShard" else "ShardIteratorType")
        seq_field = "SequenceNumber" if operation == "SubscribeToShard" else "StartingSequenceNumber"
        older = kind == "TRIM_HORIZON" or (
            kind in ("AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER") and int(start.get(seq_field)) < oldest
        )
        if not older:
            return request, document
        moved = {k: v for k, v in start.items() if k not in ("Timestamp",)}
        moved.update(
            {
                ("Type" if operation == "SubscribeToShard" else "ShardIteratorType"): "AT_SEQUENCE_NUMBER",
                seq_field: str(oldest),
            }
        )
        document = {**document, "StartingPosition": moved} if operation == "SubscribeToShard" else {**document, **moved}
        self._count(operation, "trimmed")
        return Request(request.headers, awsbody.encode(document, request.header("content-type"))), document

    # -- polling: iterators and read limits ----------------------------------------------------

    def _remember(self, iterator, shard):
        if iterator:
            self._iterators[iterator] = shard
            while len(self._iterators) > MAX_TRACKED_ITERATORS:
                self._iterators.popitem(last=False)

    def _track(self, operation, document, reply):
        content_type = dict((k.lower(), v) for k, v in reply.headers).get("content-type")
        if operation == "GetShardIterator":
            answer = awsbody.decode(reply.body, content_type)
            self._remember(answer.get("ShardIterator"), (awsbody.stream_name(document), document.get("ShardId")))
        elif operation == "GetRecords" and self._limits_on:
            shard = self._iterators.get(document.get("ShardIterator"))
            if shard is not None:
                answer = awsbody.decode(reply.body, content_type)
                size = sum(awsbody.data_size(r.get("Data")) for r in answer.get("Records", []))
                self._limits.read_bytes.take(shard, size)
                self._remember(answer.get("NextShardIterator"), shard)

    def _get_records_refused(self, request, document):
        shard = self._iterators.get(document.get("ShardIterator"))
        if shard is None:
            return None
        if self._limits.get_calls.full(shard) or self._limits.read_bytes.available(shard) <= 0:
            return self._error(
                request,
                "GetRecords",
                THROTTLED,
                f"Rate exceeded for shard {shard[1]} in stream {shard[0]} (fault proxy limits)",
                "limit",
            )
        self._limits.get_calls.add(shard)
        return None

    # -- writes: partial failures and write limits -----------------------------------------------

    async def _shards_of(self, stream, auth, entries):
        """The shard each PutRecord(s) entry goes to; None where unknown (e.g. no such stream:
        the request is then forwarded as is and Kinesis answers it)."""
        try:
            return [
                await self._shards.shard_of(stream, auth, e.get("PartitionKey", ""), e.get("ExplicitHashKey"))
                for e in entries
            ]
        except Exception as e:
            log.debug("fault proxy: no shards for the records of %s: %s", stream, e)
            return [None] * len(entries)

    async def _put_record_refused(self, request, document):
        stream, auth = awsbody.stream_name(document), auth_of(request.headers)
        shard = (await self._shards_of(stream, auth, [document]))[0]
        size = awsbody.data_size(document.get("Data")) + len(document.get("PartitionKey", "").encode())
        if shard is None or self._limits.admit_put((stream, shard), size):
            return None
        return self._error(
            request,
            "PutRecord",
            THROTTLED,
            f"Rate exceeded for shard {shard} in stream {stream} (fault proxy limits)",
            "limit",
        )

    async def _put_records(self, request, document):
        entries = document.get("Records") or []
        with self._lock:
            partial = [f for f in self._faults if f.kind == "partial"]
        stream, auth = awsbody.stream_name(document), auth_of(request.headers)
        failed = {}  # entry index -> shard id; entries of no known shard (no such stream) are left to Kinesis
        shards = await self._shards_of(stream, auth, entries) if partial or self._limits_on else [None] * len(entries)
        for i, (entry, shard) in enumerate(zip(entries, shards)):
            if shard is not None and any(f.fires(self._rng) for f in partial):
                self._count("PutRecords", "partial")
                failed[i] = shard
            elif self._limits_on and shard is not None:
                size = awsbody.data_size(entry.get("Data")) + len(entry.get("PartitionKey", "").encode())
                if not self._limits.admit_put((stream, shard), size):
                    self._count("PutRecords", "limit")
                    failed[i] = shard
        if not failed:
            return Reply(*await self._upstream.call(request.headers, request.body))
        request_type = request.header("content-type")
        kept = [e for i, e in enumerate(entries) if i not in failed]
        answer = {"Records": []}
        headers = [("Content-Type", awsbody.CBOR if awsbody.is_cbor(request_type) else awsbody.JSON)]
        if kept:
            forward = awsbody.encode({**document, "Records": kept}, request_type)
            status, headers, body = await self._upstream.call(request.headers, forward)
            if status != 200:
                return Reply(status, headers, body)
            answer = awsbody.decode(body, dict((k.lower(), v) for k, v in headers).get("content-type"))
        forwarded = iter(answer.get("Records", []))
        results = [
            {
                "ErrorCode": THROTTLED,
                "ErrorMessage": f"Rate exceeded for shard {failed[i]} in stream {stream} (fault proxy)",
            }
            if i in failed
            else next(forwarded)
            for i in range(len(entries))
        ]
        merged = {**answer, "Records": results, "FailedRecordCount": sum(bool(r.get("ErrorCode")) for r in results)}
        content_type = dict((k.lower(), v) for k, v in headers).get("content-type", request_type)
        kept_headers = [(k, v) for k, v in headers if k.lower() != "content-length"]
        return Reply(200, kept_headers, awsbody.encode(merged, content_type))

    # -- enhanced fan-out ------------------------------------------------------------------------

    async def _subscribe(self, request, document, fault):
        consumer, shard = document.get("ConsumerARN"), document.get("ShardId")
        key = (consumer, shard)
        if self._limits_on:
            if self._limits.subscribe_calls.full(key):
                return self._error(
                    request,
                    "SubscribeToShard",
                    "LimitExceededException",
                    f"Rate exceeded for consumer {consumer} and shard {shard} (fault proxy limits)",
                    "limit",
                )
            self._limits.subscribe_calls.add(key)
            if self._limits.subscriptions.full(key):
                return self._error(
                    request,
                    "SubscribeToShard",
                    "ResourceInUseException",
                    f"Another active subscription exists for consumer {consumer} and shard {shard}, "
                    "or one was started less than 5 seconds ago (fault proxy limits)",
                    "limit",
                )
        response = await self._upstream.open(request.headers, request.body)
        if response.status != 200:
            try:
                return Reply(response.status, response.headers, await response.read())
            finally:
                response.close()
        if self._limits_on:
            self._limits.subscriptions.add(key)
        events = self._events(response, fault, awsbody.stream_name(document), shard, key, auth_of(request.headers))
        return Reply(200, response.headers, stream=events)

    async def _events(self, response, fault, stream, shard, key, auth):
        """The upstream event stream, message by message, with the stream fault applied, paced
        under limits, and ended as Kinesis ends a closed shard's subscription."""
        splitter, sent, delivered = eventstream.Splitter(), 0, None
        try:
            if fault is not None and fault.kind == "end_early" and fault.after_events == 0:
                self._count("SubscribeToShard", "end_early")
                return
            async for chunk in response.chunks():
                for message in splitter.feed(chunk):
                    if message.event_type != "SubscribeToShardEvent":
                        yield message.raw
                        continue
                    if fault is not None and fault.kind == "cut" and sent == fault.after_events:
                        self._count("SubscribeToShard", fault.counted_as)
                        yield message.raw[: len(message.raw) // 2]
                        raise Cut()
                    payload = _event_payload(message)
                    records = payload.get("Records") or []
                    if records:
                        delivered = max(delivered or 0, int(records[-1]["SequenceNumber"]))
                    elif self._emulate_shard_end:
                        final = await self._final_event(stream, shard, auth, message, payload, delivered)
                        if final is not None:
                            await self._pace(key, final.raw)
                            yield final.raw
                            self._count("SubscribeToShard", "shard_end")
                            return
                    await self._pace(key, message.raw)
                    yield message.raw
                    sent += 1
                    if fault is not None and fault.kind == "end_early" and sent == fault.after_events:
                        self._count("SubscribeToShard", "end_early")
                        return
        finally:
            response.close()

    async def _pace(self, key, raw):
        if self._limits_on:
            await self._limits.efo_bytes.pace(key, len(raw))

    async def _final_event(self, stream, shard, auth, message, payload, delivered):
        """The event Kinesis sends last on a closed shard once everything in it was delivered
        (ChildShards, no ContinuationSequenceNumber), or None if that is not the case yet."""
        try:
            children = await self._shards.closed_children(stream, shard, auth)
            if children is None:
                return None
            last = await self._shards.last_record(stream, shard, auth)
        except Exception:
            log.exception("fault proxy: cannot tell whether %s/%s is closed", stream, shard)
            return None
        position = max(delivered or 0, int(payload.get("ContinuationSequenceNumber") or 0))
        if last is not None and position < last:
            return None
        final = {"Records": [], "MillisBehindLatest": 0, "ChildShards": children}
        content_type = message.content_type or "application/json"
        body = cbor2.dumps(final) if "cbor" in content_type else json.dumps(final).encode()
        return eventstream.build(
            {":message-type": "event", ":event-type": "SubscribeToShardEvent", ":content-type": content_type}, body
        )


def _event_payload(message):
    try:
        value = cbor2.loads(message.payload) if "cbor" in (message.content_type or "") else json.loads(message.payload)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
