# SPDX-License-Identifier: Apache-2.0
"""ForwardProxy: an HTTP forward proxy on 127.0.0.1 for the end-to-end tests of the proxy options,
requiring Basic authentication and counting what went through it.

It forwards requests in absolute form (``POST http://127.0.0.1:4567/ HTTP/1.1``, how an HTTP/1.1
client sends a plain-http request to a proxy), one per connection, counted by their
``X-Amz-Target`` operation in ``.forwarded``; and opens CONNECT tunnels (how https, and HTTP/2 to
any endpoint, goes through a proxy), counted by target in ``.tunnels``. A request without the
right ``Proxy-Authorization`` is answered 407 and counted in ``.refused``. Runs an asyncio loop
in a daemon thread."""

import asyncio
import base64
import collections
import threading
from urllib.parse import urlsplit

import h11

HOP_BY_HOP = {
    "connection",
    "proxy-connection",
    "proxy-authorization",
    "keep-alive",
    "transfer-encoding",
    "content-length",
    "te",
    "trailer",
    "upgrade",
}


class ForwardProxy:
    def __init__(self, username, password):
        self._expected = "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()
        self._lock = threading.Lock()
        self._forwarded, self._tunnels = collections.Counter(), collections.Counter()
        self._refused = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="forward-proxy", daemon=True)
        self._thread.start()
        self._server = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._serve, "127.0.0.1", 0), self._loop
        ).result(30)
        self.port = self._server.sockets[0].getsockname()[1]

    @property
    def forwarded(self):
        """Counter operation -> requests forwarded (a snapshot)."""
        with self._lock:
            return collections.Counter(self._forwarded)

    @property
    def tunnels(self):
        """Counter "host:port" -> CONNECT tunnels opened (a snapshot)."""
        with self._lock:
            return collections.Counter(self._tunnels)

    @property
    def refused(self):
        """Requests answered 407: no or wrong Proxy-Authorization."""
        with self._lock:
            return self._refused

    def close(self):
        if self._loop.is_closed():
            return

        async def stop():
            self._server.close()
            await self._server.wait_closed()

        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- serving -----------------------------------------------------------------------------

    async def _serve(self, reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = [tuple(part.strip() for part in line.split(":", 1)) for line in lines[1:] if ":" in line]
            if dict((k.lower(), v) for k, v in headers).get("proxy-authorization") != self._expected:
                with self._lock:
                    self._refused += 1
                writer.write(
                    b'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="e2e"'
                    b"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                )
            elif method == "CONNECT":
                await self._tunnel(target, reader, writer)
            else:
                await self._forward(method, target, headers, reader, writer)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    async def _tunnel(self, target, reader, writer):
        host, port = target.rsplit(":", 1)
        up_reader, up_writer = await asyncio.open_connection(host, int(port))
        with self._lock:
            self._tunnels[target] += 1
        writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")

        async def pipe(source, sink):
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            except ConnectionError:
                pass
            finally:
                sink.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    async def _forward(self, method, target, headers, reader, writer):
        url = urlsplit(target)
        length = int(dict((k.lower(), v) for k, v in headers).get("content-length", "0"))
        body = await reader.readexactly(length) if length else b""
        kept = [(k, v) for k, v in headers if k.lower() not in HOP_BY_HOP]
        operation = dict((k.lower(), v) for k, v in kept).get("x-amz-target", "").rpartition(".")[2]
        with self._lock:
            self._forwarded[operation] += 1
        status, reason, answer_headers, answer = await self._upstream(
            url.hostname, url.port, method, url.path or "/", kept + [("Content-Length", str(len(body)))], body
        )
        head = [f"HTTP/1.1 {status} {reason}"] + [f"{k}: {v}" for k, v in answer_headers if k.lower() not in HOP_BY_HOP]
        head += [f"Content-Length: {len(answer)}", "Connection: close", "", ""]
        writer.write("\r\n".join(head).encode("latin-1") + answer)

    @staticmethod
    async def _upstream(host, port, method, path, headers, body):
        """One request to the upstream, its whole answer: (status, reason, headers, body)."""
        reader, writer = await asyncio.open_connection(host, port)
        try:
            connection = h11.Connection(our_role=h11.CLIENT)
            writer.write(connection.send(h11.Request(method=method, target=path, headers=headers)))
            writer.write(connection.send(h11.Data(data=body)) + connection.send(h11.EndOfMessage()))
            await writer.drain()
            response, parts = None, []
            while True:
                event = connection.next_event()
                if event is h11.NEED_DATA:
                    connection.receive_data(await reader.read(65536))
                elif isinstance(event, h11.Response):
                    response = event
                elif isinstance(event, h11.Data):
                    parts.append(bytes(event.data))
                elif isinstance(event, (h11.EndOfMessage, h11.ConnectionClosed)):
                    break
            if response is None:
                raise ConnectionError("the upstream closed the connection before it answered")
            answer_headers = [(k.decode(), v.decode()) for k, v in response.headers]
            return response.status_code, response.reason.decode() or "OK", answer_headers, b"".join(parts)
        finally:
            writer.close()
