# SPDX-License-Identifier: Apache-2.0
"""A small blocking SubscribeToShard client over HTTP/2 with prior knowledge (h2c), for tests
that look at the event stream itself: each message, how the stream ended (END_STREAM, a
stream reset, the connection closed), and bytes left over inside a cut message."""

import json
import socket
import time
from urllib.parse import urlsplit

import cbor2
import h2.config
import h2.connection
import h2.events

from . import awsbody, eventstream

FAKE_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"  # kinesis-mock checks the form of the signature only


class Subscription:
    """Subscribes at construction; .status, .headers (lower-case dict), .error (the decoded error
    document when status != 200); .messages() yields eventstream.Message until the stream ends,
    then .outcome is "ended", "reset" or "closed" and .leftover the bytes of an incomplete message."""

    def __init__(self, endpoint, region, consumer_arn, shard_id, position=None, cbor=False, timeout=30):
        parts = urlsplit(endpoint)
        self._sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        self._conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self._conn.initiate_connection()
        content_type = awsbody.CBOR if cbor else awsbody.JSON
        document = {
            "ConsumerARN": consumer_arn,
            "ShardId": shard_id,
            "StartingPosition": position or {"Type": "TRIM_HORIZON"},
        }
        body = cbor2.dumps(document) if cbor else json.dumps(document).encode()
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        self._id = self._conn.get_next_available_stream_id()
        self._conn.send_headers(
            self._id,
            [
                (":method", "POST"),
                (":scheme", "http"),
                (":authority", parts.netloc),
                (":path", "/"),
                ("content-type", content_type),
                ("x-amz-target", "Kinesis_20131202.SubscribeToShard"),
                ("x-amz-date", stamp),
                (
                    "authorization",
                    f"AWS4-HMAC-SHA256 Credential={FAKE_ACCESS_KEY}/{stamp[:8]}/{region}/kinesis/"
                    f"aws4_request, SignedHeaders=host;x-amz-date, Signature={'0' * 64}",
                ),
            ],
        )
        self._conn.send_data(self._id, body, end_stream=True)
        self._sock.sendall(self._conn.data_to_send())
        self.status, self.headers, self.error, self.outcome, self.leftover = None, {}, None, None, 0
        self._splitter, self._ready, self._body = eventstream.Splitter(), [], bytearray()
        while self.status is None and self.outcome is None:
            self._pump()
        if self.status != 200:
            while self.outcome is None:
                self._pump()
            self.error = awsbody.decode(bytes(self._body), self.headers.get("content-type"))

    def _pump(self):
        data = self._sock.recv(65536)
        if not data:
            self.outcome = self.outcome or "closed"
            return
        for event in self._conn.receive_data(data):
            if isinstance(event, h2.events.ResponseReceived) and event.stream_id == self._id:
                self.headers = dict(event.headers)
                self.status = int(self.headers[":status"])
            elif isinstance(event, h2.events.DataReceived) and event.stream_id == self._id:
                self._conn.acknowledge_received_data(event.flow_controlled_length, self._id)
                if self.status == 200:
                    self._ready += list(self._splitter.feed(event.data))
                else:
                    self._body += event.data
            elif isinstance(event, h2.events.StreamEnded) and event.stream_id == self._id:
                self.outcome = "ended"
            elif isinstance(event, h2.events.StreamReset) and event.stream_id == self._id:
                self.outcome = "reset"
            elif isinstance(event, h2.events.ConnectionTerminated):
                self.outcome = self.outcome or "closed"
        self._sock.sendall(self._conn.data_to_send())
        self.leftover = self._splitter.pending

    def peek(self):
        """The next message without consuming it (None if the stream ended first)."""
        while not self._ready and self.outcome is None:
            self._pump()
        return self._ready[0] if self._ready else None

    def messages(self):
        while True:
            while self._ready:
                yield self._ready.pop(0)
            if self.outcome is not None:
                return
            self._pump()

    def events(self):
        """The payloads (dicts) of the SubscribeToShardEvents."""
        for message in self.messages():
            if message.event_type == "SubscribeToShardEvent":
                payload = message.payload
                yield cbor2.loads(payload) if "cbor" in (message.content_type or "") else json.loads(payload)

    def close(self):
        self._sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
