# SPDX-License-Identifier: Apache-2.0
"""What the proxy needs to know about shards, asked of the upstream Kinesis: the shard list of a
stream (for PutRecords routing, closed shards and their children), and the last record of a
closed shard (to tell when a subscriber has everything)."""

import hashlib
import json
import time

from .awsbody import JSON

AUTH_HEADERS = {"authorization", "x-amz-date", "x-amz-security-token"}


def auth_of(headers):
    """The client's signing headers, reused for the proxy's own upstream calls: kinesis-mock
    checks they are well formed (not the signature) and takes account and region from them."""
    return [(k, v) for k, v in headers if k.lower() in AUTH_HEADERS]


def access_key_of(headers):
    """The access key id a request was signed with (SigV4's Credential=<key id>/...), or None."""
    authorization = next((v for k, v in headers if k.lower() == "authorization"), "")
    _, found, rest = authorization.partition("Credential=")
    return rest.split("/", 1)[0] if found else None


def hash_key(partition_key, explicit_hash_key=None):
    """The 128-bit hash key Kinesis routes a record by."""
    if explicit_hash_key is not None:
        return int(explicit_hash_key)
    return int.from_bytes(hashlib.md5(partition_key.encode()).digest(), "big")


def is_open(shard):
    # kinesis-mock writes absent fields as null
    return (shard.get("SequenceNumberRange") or {}).get("EndingSequenceNumber") is None


class ShardMap:
    def __init__(self, upstream, ttl=1.0):
        self._upstream, self._ttl = upstream, ttl
        self._lists = {}  # stream -> (monotonic time, [shard])
        self._last_records = {}  # (stream, closed shard) -> last sequence number or None

    async def _call(self, operation, document, auth):
        headers = [("Content-Type", JSON), ("X-Amz-Target", f"Kinesis_20131202.{operation}"), *auth]
        status, _, body = await self._upstream.call(headers, json.dumps(document).encode())
        if status != 200:
            raise RuntimeError(f"upstream {operation} answered {status}: {body[:200]!r}")
        return json.loads(body)

    async def shards(self, stream, auth, fresh=False):
        cached = self._lists.get(stream)
        if cached and not fresh and time.monotonic() - cached[0] < self._ttl:
            return cached[1]
        shards, request = [], {"StreamName": stream}
        while True:
            page = await self._call("ListShards", request, auth)
            shards += page.get("Shards", [])
            if not page.get("NextToken"):
                break
            request = {"NextToken": page["NextToken"]}
        self._lists[stream] = (time.monotonic(), shards)
        return shards

    async def shard_of(self, stream, auth, partition_key, explicit_hash_key=None):
        """The open shard a record goes to, or None if none matches."""
        key = hash_key(partition_key, explicit_hash_key)
        for fresh in (False, True):
            for shard in await self.shards(stream, auth, fresh):
                r = shard["HashKeyRange"]
                if is_open(shard) and int(r["StartingHashKey"]) <= key <= int(r["EndingHashKey"]):
                    return shard["ShardId"]
        return None

    async def closed_children(self, stream, shard_id, auth):
        """None while the shard is open; once closed, its children as SubscribeToShard's
        ChildShards lists them."""
        shards = await self.shards(stream, auth)
        this = next((s for s in shards if s["ShardId"] == shard_id), None)
        if this is None or is_open(this):
            return None
        return [
            {
                "ShardId": s["ShardId"],
                "ParentShards": [p for p in (s.get("ParentShardId"), s.get("AdjacentParentShardId")) if p],
                "HashKeyRange": s["HashKeyRange"],
            }
            for s in shards
            if shard_id in (s.get("ParentShardId"), s.get("AdjacentParentShardId"))
        ]

    async def last_record(self, stream, shard_id, auth):
        """Sequence number (int) of the last record of a closed shard, None if it has none; read
        once from the shard itself (kinesis-mock's EndingSequenceNumber is Long.MAX_VALUE)."""
        key = (stream, shard_id)
        if key not in self._last_records:
            start = {"StreamName": stream, "ShardId": shard_id, "ShardIteratorType": "TRIM_HORIZON"}
            iterator = (await self._call("GetShardIterator", start, auth))["ShardIterator"]
            last = None
            while iterator:
                page = await self._call("GetRecords", {"ShardIterator": iterator, "Limit": 10000}, auth)
                if page.get("Records"):
                    last = int(page["Records"][-1]["SequenceNumber"])
                elif page.get("MillisBehindLatest", 0) == 0 and page.get("NextShardIterator"):
                    # An open shard reads empty at its tip forever; a closed one ends the iterator.
                    break
                iterator = page.get("NextShardIterator")
            self._last_records[key] = last
        return self._last_records[key]
