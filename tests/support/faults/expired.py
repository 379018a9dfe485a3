# SPDX-License-Identifier: Apache-2.0
"""Shards past the stream's retention. Kinesis lists a closed shard only for the retention
period, then forgets it; kinesis-mock keeps every shard (its retention is a day at least), so
the proxy emulates the expiry: an expired shard is left out of ListShards answers, and reads
that name it are refused with ResourceNotFoundException, as Kinesis refuses them."""

import threading

from . import awsbody

# The operations that name a shard to read it.
READS = ("GetShardIterator", "SubscribeToShard")


class ExpiredShards:
    def __init__(self):
        self._shards = set()  # (stream, shard id)
        self._lock = threading.Lock()

    def add(self, stream, shard_id):
        with self._lock:
            self._shards.add((stream, shard_id))

    def named_by(self, operation, document):
        """The (stream, shard) a read of an expired shard names, else None."""
        key = (awsbody.stream_name(document), document.get("ShardId"))
        with self._lock:
            return key if operation in READS and key in self._shards else None

    def listed(self, document, status, headers, body):
        """A ListShards answer without the expired shards; (status, headers, body). A page asked
        for by NextToken alone names no stream and is passed on as it is."""
        stream = awsbody.stream_name(document)
        with self._lock:
            hidden = {shard for s, shard in self._shards if s == stream}
        if status != 200 or not hidden:
            return status, headers, body
        content_type = dict((k.lower(), v) for k, v in headers).get("content-type")
        answer = awsbody.decode(body, content_type)
        answer["Shards"] = [s for s in answer.get("Shards", []) if s.get("ShardId") not in hidden]
        kept = [(k, v) for k, v in headers if k.lower() != "content-length"]
        return status, kept, awsbody.encode(answer, content_type)
