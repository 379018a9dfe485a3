"""A Kinesis endpoint that throttles: an HTTP proxy in front of the local Kinesis that refuses
PutRecords calls with ProvisionedThroughputExceededException, as a real shard over its write
limit does, and forwards every other request untouched.

kinesis-mock never throttles, so this is how the end-to-end tests see the sink retry and, when
retries run out, fail. A refused call is never forwarded: its records are not written.
"""

import http.client
import http.server
import json
import threading
from urllib.parse import urlsplit

THROTTLED = "ProvisionedThroughputExceededException"
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
               "proxy-authorization", "proxy-authenticate", "content-length"}


def _cbor_text(text):
    data = text.encode()
    n = len(data)
    head = bytes([0x60 + n]) if n < 24 else bytes([0x78, n]) if n < 256 else bytes([0x79]) + n.to_bytes(2, "big")
    return head + data


def _error_body(content_type, message):
    """The error document in the protocol the client speaks (the Java SDK uses CBOR)."""
    fields = {"__type": THROTTLED, "message": message}
    if "cbor" in content_type:
        return bytes([0xA0 + len(fields)]) + b"".join(_cbor_text(k) + _cbor_text(v) for k, v in fields.items())
    return json.dumps(fields).encode()


class ThrottlingProxy:
    """Forwards to `upstream`; the first `throttle` PutRecords calls (all with -1) are refused."""

    def __init__(self, upstream, throttle=0):
        self.upstream = urlsplit(upstream)
        self.throttle = throttle
        self.put_calls = 0
        self.throttled_calls = 0
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                target = self.headers.get("X-Amz-Target", "")
                if target.endswith(".PutRecords") and proxy._refuse():
                    content_type = self.headers.get("Content-Type", "application/x-amz-json-1.1")
                    reply = _error_body(content_type, "Rate exceeded for shard (throttling proxy)")
                    self.send_response(400)
                    self.send_header("x-amzn-ErrorType", THROTTLED)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                    return
                conn = http.client.HTTPConnection(proxy.upstream.hostname, proxy.upstream.port, timeout=60)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                    conn.request("POST", self.path, body=body, headers=headers)
                    response = conn.getresponse()
                    reply = response.read()
                    self.send_response(response.status)
                    for k, v in response.getheaders():
                        if k.lower() not in _HOP_BY_HOP:
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(reply)))
                    self.end_headers()
                    self.wfile.write(reply)
                finally:
                    conn.close()

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def _refuse(self):
        with self._lock:
            self.put_calls += 1
            if self.throttle < 0 or self.throttled_calls < self.throttle:
                self.throttled_calls += 1
                return True
            return False

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
