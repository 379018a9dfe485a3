# SPDX-License-Identifier: Apache-2.0
"""AWS event stream messages, the framing of a SubscribeToShard response body.

A message is: total length (4 bytes), headers length (4), CRC32 of those 8 bytes, the headers
(name length 1 byte, name, value type 1 byte, value), the payload, and the CRC32 of everything
before it. Integers are big-endian. The proxy splits the upstream body at message boundaries so
it can stop between events or inside one, and writes messages of its own (the final event)."""

import struct
import zlib

PRELUDE = 12
TRAILER = 4
STRING = 7

# Value sizes of the fixed-size header types (0/1 are true/false, with no value).
_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}


class Message:
    """One message: raw bytes as received or built, its headers (type 7 strings decoded) and payload."""

    def __init__(self, raw, headers, payload):
        self.raw, self.headers, self.payload = raw, headers, payload

    @property
    def message_type(self):
        return self.headers.get(":message-type")

    @property
    def event_type(self):
        return self.headers.get(":event-type")

    @property
    def content_type(self):
        return self.headers.get(":content-type")


def parse(raw):
    total, headers_length, prelude_crc = struct.unpack(">III", raw[:PRELUDE])
    if len(raw) != total or zlib.crc32(raw[:8]) != prelude_crc:
        raise ValueError("event stream message: bad prelude")
    if zlib.crc32(raw[:-TRAILER]) != struct.unpack(">I", raw[-TRAILER:])[0]:
        raise ValueError("event stream message: bad message CRC")
    headers, at, end = {}, PRELUDE, PRELUDE + headers_length
    while at < end:
        name_length = raw[at]
        name = raw[at + 1 : at + 1 + name_length].decode()
        kind = raw[at + 1 + name_length]
        at += 2 + name_length
        if kind in _FIXED:
            value, at = raw[at : at + _FIXED[kind]], at + _FIXED[kind]
        else:  # 6 bytes, 7 string: 2-byte length first
            length = struct.unpack(">H", raw[at : at + 2])[0]
            value, at = raw[at + 2 : at + 2 + length], at + 2 + length
            if kind == STRING:
                value = value.decode()
        headers[name] = value
    return Message(raw, headers, raw[end:-TRAILER])


def build(headers, payload):
    """A message with string headers (name -> str) and the payload bytes."""
    encoded = b"".join(
        struct.pack(">B", len(n.encode())) + n.encode() + struct.pack(">BH", STRING, len(v.encode())) + v.encode()
        for n, v in headers.items()
    )
    total = PRELUDE + len(encoded) + len(payload) + TRAILER
    prelude = struct.pack(">II", total, len(encoded))
    body = prelude + struct.pack(">I", zlib.crc32(prelude)) + encoded + payload
    raw = body + struct.pack(">I", zlib.crc32(body))
    return Message(raw, dict(headers), payload)


class Splitter:
    """Feed bytes as they come; yields whole messages."""

    def __init__(self):
        self._buffer = bytearray()

    def feed(self, data):
        self._buffer += data
        while len(self._buffer) >= PRELUDE:
            total = struct.unpack(">I", self._buffer[:4])[0]
            if total < PRELUDE + TRAILER:
                raise ValueError(f"event stream message: impossible length {total}")
            if len(self._buffer) < total:
                return
            raw = bytes(self._buffer[:total])
            del self._buffer[:total]
            yield parse(raw)

    @property
    def pending(self):
        return len(self._buffer)
