# SPDX-License-Identifier: Apache-2.0
"""Rate limits as Kinesis applies them per shard, for FaultProxy.limits(True)."""

import asyncio
import time

GET_RECORDS_PER_SECOND = 5
READ_BYTES_PER_SECOND = 2 * 1024 * 1024
PUT_RECORDS_PER_SECOND = 1000
PUT_BYTES_PER_SECOND = 1024 * 1024
SUBSCRIBE_CALLS_PER_SECOND = 1
SUBSCRIBE_REPEAT_SECONDS = 5


class Window:
    """Events in the last `seconds`, per key."""

    def __init__(self, limit, seconds=1.0):
        self.limit, self.seconds = limit, seconds
        self._times = {}

    def full(self, key):
        now = time.monotonic()
        times = [t for t in self._times.get(key, []) if now - t < self.seconds]
        self._times[key] = times
        return len(times) >= self.limit

    def add(self, key):
        self._times.setdefault(key, []).append(time.monotonic())


class Bucket:
    """A token bucket per key holding at most one second of `rate`; may run into debt (one
    GetRecords may return more than a second's worth, and the shard is then throttled until
    the debt is paid off)."""

    def __init__(self, rate):
        self.rate = rate
        self._state = {}  # key -> (tokens, monotonic time)

    def available(self, key):
        tokens, at = self._state.get(key, (self.rate, time.monotonic()))
        now = time.monotonic()
        tokens = min(self.rate, tokens + (now - at) * self.rate)
        self._state[key] = (tokens, now)
        return tokens

    def take(self, key, n):
        tokens = self.available(key)
        self._state[key] = (tokens - n, time.monotonic())

    async def pace(self, key, n):
        """Waits until `n` tokens can be taken (at most a second's worth at once), takes them."""
        while n > 0:
            part = min(n, self.rate)
            missing = part - self.available(key)
            if missing > 0:
                await asyncio.sleep(missing / self.rate)
                continue
            self.take(key, part)
            n -= part


class Limits:
    """All per-shard limits of one proxy; keys are (stream, shard) or (consumer, shard)."""

    def __init__(self):
        self.get_calls = Window(GET_RECORDS_PER_SECOND)
        self.read_bytes = Bucket(READ_BYTES_PER_SECOND)
        self.put_records = Bucket(PUT_RECORDS_PER_SECOND)
        self.put_bytes = Bucket(PUT_BYTES_PER_SECOND)
        self.subscribe_calls = Window(SUBSCRIBE_CALLS_PER_SECOND)
        self.subscriptions = Window(1, SUBSCRIBE_REPEAT_SECONDS)
        self.efo_bytes = Bucket(READ_BYTES_PER_SECOND)

    def admit_put(self, key, size):
        """Whether a record of `size` bytes (data + partition key) fits the shard's write limit; takes it if so.
        A record over a second's worth (up to 10 MiB, on a stream raised to them) is taken once
        the shard has a whole second's worth, as Kinesis bursts for it: the shard is then in
        debt, and refuses writes until the debt is paid off."""
        if self.put_records.available(key) < 1 or self.put_bytes.available(key) < min(size, PUT_BYTES_PER_SECOND):
            return False
        self.put_records.take(key, 1)
        self.put_bytes.take(key, size)
        return True
