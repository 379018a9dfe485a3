# SPDX-License-Identifier: Apache-2.0
"""The proxy's client to the real (local) Kinesis: plain HTTP/1.1 with h11, one connection per
request, so a streamed SubscribeToShard body can be read as it comes and dropped at will
(closing the connection ends the subscription upstream)."""

import asyncio
from urllib.parse import urlsplit

import h11

# Headers that belong to one hop, not to the request or response.
HOP_BY_HOP = {
    "connection",
    "keep-alive",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "host",
    "proxy-authorization",
    "proxy-authenticate",
    "content-length",
    "expect",
    "http2-settings",
}


class Upstream:
    def __init__(self, endpoint):
        parts = urlsplit(endpoint)
        if parts.scheme != "http" or not parts.hostname or not parts.port:
            raise ValueError(f"upstream must be a plain http://host:port endpoint (kinesis.endpoint), got {endpoint!r}")
        self.host, self.port = parts.hostname, parts.port

    async def open(self, headers, body):
        """Sends a POST; returns a Response whose headers are read and body is not yet."""
        reader, writer = await asyncio.open_connection(self.host, self.port)
        conn = h11.Connection(h11.CLIENT)
        sent = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        sent += [("Host", f"{self.host}:{self.port}"), ("Content-Length", str(len(body))), ("Connection", "close")]
        writer.write(conn.send(h11.Request(method="POST", target="/", headers=sent)))
        writer.write(conn.send(h11.Data(data=body)))
        writer.write(conn.send(h11.EndOfMessage()))
        await writer.drain()
        response = Response(conn, reader, writer)
        try:
            await response._read_head()
        except BaseException:
            response.close()
            raise
        return response

    async def call(self, headers, body):
        """(status, headers, body) of a whole request."""
        response = await self.open(headers, body)
        try:
            return response.status, response.headers, await response.read()
        finally:
            response.close()


class Response:
    def __init__(self, conn, reader, writer):
        self._conn, self._reader, self._writer = conn, reader, writer
        self.status, self.headers = None, []

    async def _next_event(self):
        while True:
            event = self._conn.next_event()
            if event is h11.NEED_DATA:
                data = await self._reader.read(65536)
                self._conn.receive_data(data)
                continue
            return event

    async def _read_head(self):
        while True:
            event = await self._next_event()
            if isinstance(event, h11.Response):
                self.status = event.status_code
                self.headers = [
                    (k.decode(), v.decode()) for k, v in event.headers if k.decode().lower() not in HOP_BY_HOP
                ]
                return
            if isinstance(event, h11.ConnectionClosed):
                raise ConnectionError("upstream closed the connection before answering")

    async def chunks(self):
        """The body as it arrives; ends at the end of the message."""
        while True:
            event = await self._next_event()
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                return

    async def read(self):
        return b"".join([chunk async for chunk in self.chunks()])

    def close(self):
        self._writer.close()
