# SPDX-License-Identifier: Apache-2.0
"""The proxy's listening side: one asyncio server on loopback speaking HTTP/1.1 (h11) and
HTTP/2 with prior knowledge (h2c, the h2 library) on the same port. The first bytes of a
connection decide: the HTTP/2 connection preface, or else HTTP/1.1.

Both hand each request to the same handler (an async function Request -> Reply) and write the
Reply the way the protocol allows: whole, streamed (chunked / DATA frames), cut, or not at all."""

import asyncio
import logging

import h2.config
import h2.connection
import h2.errors
import h2.events
import h2.exceptions
import h11

from .upstream import HOP_BY_HOP

log = logging.getLogger("faults")

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


class Request:
    def __init__(self, headers, body):
        self.headers, self.body = headers, body

    def header(self, name, default=""):
        name = name.lower()
        return next((v for k, v in self.headers if k.lower() == name), default)

    @property
    def operation(self):
        return self.header("x-amz-target").rpartition(".")[2]


class Cut(Exception):
    """Raised by a Reply's stream: drop it here (HTTP/1.1: the connection; HTTP/2: RST_STREAM)."""


class Reply:
    """status + headers, then either body (whole) or stream (async iterator of bytes).
    reset: send half the body, then drop. hang: say nothing for that many seconds, then close."""

    def __init__(self, status=200, headers=(), body=b"", stream=None, reset=False, hang=None):
        self.status, self.headers, self.body, self.stream = status, list(headers), body, stream
        self.reset, self.hang = reset, hang

    def head(self, lower=False):
        headers = [(k.lower() if lower else k, v) for k, v in self.headers if k.lower() not in HOP_BY_HOP]
        if self.stream is None:
            headers.append(("content-length" if lower else "Content-Length", str(len(self.body))))
        return headers


async def _close_stream(reply):
    if reply is not None and reply.stream is not None:
        await reply.stream.aclose()


class Server:
    def __init__(self, handler):
        self._handler = handler
        self._server: "asyncio.Server | None" = None
        self._tasks: "set[asyncio.Task]" = set()

    async def start(self):
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        return self._server.sockets[0].getsockname()[1]

    async def stop(self):
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _connection(self, reader, writer):
        task = asyncio.current_task()
        assert task is not None  # a connection is served by a task of its own
        self._tasks.add(task)
        try:
            first = b""
            while len(first) < len(PREFACE) and PREFACE.startswith(first):
                data = await reader.read(len(PREFACE) - len(first))
                if not data:
                    return
                first += data
            if first == PREFACE:
                await Http2(self._handler, reader, writer).run(first)
            else:
                await _http11(self._handler, reader, writer, first)
        except (ConnectionError, asyncio.IncompleteReadError, h11.ProtocolError, h2.exceptions.ProtocolError) as e:
            log.debug("connection ended: %r", e)
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("fault proxy connection failed")
        finally:
            self._tasks.discard(task)
            writer.transport.abort()


async def _http11(handler, reader, writer, initial):
    conn = h11.Connection(h11.SERVER)
    conn.receive_data(initial)
    while True:
        request, body = None, bytearray()
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                if conn.they_are_waiting_for_100_continue:
                    writer.write(conn.send(h11.InformationalResponse(status_code=100, headers=[])))
                conn.receive_data(await reader.read(65536))
            elif isinstance(event, h11.Request):
                request = event
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage):
                break
            else:  # ConnectionClosed, PAUSED
                return
        assert request is not None  # an EndOfMessage follows its Request
        headers = [(k.decode(), v.decode()) for k, v in request.headers]
        reply = await handler(Request(headers, bytes(body)))
        try:
            if reply.hang is not None:
                await asyncio.sleep(reply.hang)
                return
            writer.write(conn.send(h11.Response(status_code=reply.status, headers=reply.head())))
            if reply.stream is not None:
                try:
                    async for chunk in reply.stream:
                        writer.write(conn.send(h11.Data(data=chunk)))
                        await writer.drain()
                except Cut:
                    return
            elif reply.reset:
                writer.write(conn.send(h11.Data(data=reply.body[: len(reply.body) // 2])))
                await writer.drain()
                return
            elif reply.body:
                writer.write(conn.send(h11.Data(data=reply.body)))
            writer.write(conn.send(h11.EndOfMessage()))
            await writer.drain()
        finally:
            await _close_stream(reply)
        if conn.our_state is h11.MUST_CLOSE:
            return
        conn.start_next_cycle()


class Http2:
    """One HTTP/2 connection: requests on concurrent streams, each answered by its own task."""

    def __init__(self, handler, reader, writer):
        self._handler, self._reader, self._writer = handler, reader, writer
        self._conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
        self._requests = {}  # stream id -> (headers, body)
        self._tasks: "dict[int, asyncio.Task]" = {}  # stream id -> task answering it
        self._window = asyncio.Event()

    def _forget(self, stream_id):
        """A done-callback that drops the task answering `stream_id`."""
        return lambda _task: self._tasks.pop(stream_id, None)

    def _flush(self):
        data = self._conn.data_to_send()
        if data:
            self._writer.write(data)

    async def run(self, initial):
        self._conn.initiate_connection()
        try:
            data = initial
            while data:
                if not self._receive(data):
                    break
                self._flush()
                await self._writer.drain()
                data = await self._reader.read(65536)
        finally:
            for task in self._tasks.values():
                task.cancel()
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    def _receive(self, data):
        for event in self._conn.receive_data(data):
            if isinstance(event, h2.events.RequestReceived):
                self._requests[event.stream_id] = (event.headers, bytearray())
            elif isinstance(event, h2.events.DataReceived):
                if event.stream_id in self._requests:
                    self._requests[event.stream_id][1].extend(event.data)
                self._conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                if event.stream_id not in self._requests:
                    continue
                headers, body = self._requests.pop(event.stream_id)
                task = asyncio.create_task(self._answer(event.stream_id, headers, bytes(body)))
                self._tasks[event.stream_id] = task
                task.add_done_callback(self._forget(event.stream_id))
            elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
                self._window.set()
                self._window = asyncio.Event()
            elif isinstance(event, h2.events.StreamReset):
                self._requests.pop(event.stream_id, None)
                answering = self._tasks.get(event.stream_id)
                if answering:
                    answering.cancel()
            elif isinstance(event, h2.events.ConnectionTerminated):
                return False
        return True

    async def _send(self, stream_id, data):
        while data:
            window = min(self._conn.local_flow_control_window(stream_id), self._conn.max_outbound_frame_size)
            if window <= 0:
                await self._window.wait()
                continue
            self._conn.send_data(stream_id, data[:window])
            data = data[window:]
            self._flush()
            await self._writer.drain()

    def _reset(self, stream_id, code):
        self._conn.reset_stream(stream_id, code)
        self._flush()

    async def _answer(self, stream_id, headers, body):
        reply = None
        try:
            request = Request([(k, v) for k, v in headers if not k.startswith(":")], body)
            reply = await self._handler(request)
            if reply.hang is not None:
                await asyncio.sleep(reply.hang)
                self._reset(stream_id, h2.errors.ErrorCodes.CANCEL)
                return
            self._conn.send_headers(stream_id, [(":status", str(reply.status))] + reply.head(lower=True))
            self._flush()
            if reply.stream is not None:
                try:
                    async for chunk in reply.stream:
                        await self._send(stream_id, chunk)
                except Cut:
                    self._reset(stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
                    return
            elif reply.reset:
                await self._send(stream_id, reply.body[: len(reply.body) // 2])
                self._reset(stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
                return
            else:
                await self._send(stream_id, reply.body)
            self._conn.end_stream(stream_id)
            self._flush()
        except (h2.exceptions.StreamClosedError, ConnectionError):
            pass  # the client went away or reset the stream
        except asyncio.CancelledError:
            pass
        except Exception:
            log.exception("fault proxy HTTP/2 stream %s failed", stream_id)
            try:
                self._reset(stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
            except h2.exceptions.ProtocolError:
                pass
        finally:
            await _close_stream(reply)
