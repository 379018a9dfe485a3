# SPDX-License-Identifier: Apache-2.0
"""What a test asks the proxy to inject: a Fault is a kind (error, delay, ...) for one operation
plus a selector saying which candidate requests (or PutRecords entries) it hits."""

import threading

OPERATIONS = frozenset(
    {
        "AddTagsToStream",
        "CreateStream",
        "DecreaseStreamRetentionPeriod",
        "DeleteStream",
        "DeregisterStreamConsumer",
        "DescribeLimits",
        "DescribeStream",
        "DescribeStreamConsumer",
        "DescribeStreamSummary",
        "DisableEnhancedMonitoring",
        "EnableEnhancedMonitoring",
        "GetRecords",
        "GetShardIterator",
        "IncreaseStreamRetentionPeriod",
        "ListShards",
        "ListStreamConsumers",
        "ListStreams",
        "ListTagsForStream",
        "MergeShards",
        "PutRecord",
        "PutRecords",
        "RegisterStreamConsumer",
        "RemoveTagsFromStream",
        "SplitShard",
        "StartStreamEncryption",
        "StopStreamEncryption",
        "SubscribeToShard",
        "UpdateShardCount",
        "UpdateStreamMode",
    }
)

# Error codes and the HTTP status Kinesis answers them with; any other code is a 400 client error.
SERVER_ERRORS = {"InternalFailure": 500, "ServiceUnavailable": 503}


def status_of(code):
    return SERVER_ERRORS.get(code, 400)


class Fault:
    """One fault. Build with the class methods; selectors (exactly one): share=p (each candidate
    with probability p, from the proxy's seeded random), first=n (the first n candidates),
    every=n (every n-th candidate); until=n stops after n injections."""

    def __init__(
        self,
        kind,
        operation,
        *,
        share=None,
        first=None,
        every=None,
        until=None,
        code=None,
        seconds=None,
        after_events=None,
    ):
        if operation not in OPERATIONS:
            raise ValueError(f"operation {operation!r} is not a Kinesis operation; one of {sorted(OPERATIONS)}")
        chosen = [name for name, value in (("share", share), ("first", first), ("every", every)) if value is not None]
        if len(chosen) != 1:
            raise ValueError(f"a fault needs exactly one selector of share=, first=, every= (got {chosen or 'none'})")
        if share is not None and not 0 <= share <= 1:
            raise ValueError(f"share must be a probability between 0 and 1, got {share!r}")
        for name, value in (("first", first), ("every", every), ("until", until)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if seconds is not None and seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {seconds!r}")
        if after_events is not None and (not isinstance(after_events, int) or after_events < 0):
            raise ValueError(f"after_events must be an integer >= 0, got {after_events!r}")
        self.kind, self.operation, self.code = kind, operation, code
        self.share, self.first, self.every, self.until = share, first, every, until
        self.seconds, self.after_events = seconds, after_events
        self.counted_as = {"cut": "cut_mid_event"}.get(kind, code if kind == "error" else kind)  # key in injected
        self.seen = 0  # candidates that reached this fault
        self.injected = 0  # times it fired
        self._lock = threading.Lock()

    # -- builders (the contract's names) --------------------------------------------------------

    @classmethod
    def error(cls, operation, code, **selector):
        """Refuse the request with an AWS error (never forwarded): 400 with __type = code, or
        500 InternalFailure / 503 ServiceUnavailable."""
        if not code or not isinstance(code, str):
            raise ValueError(
                f"code must be an AWS error code such as ProvisionedThroughputExceededException, got {code!r}"
            )
        return cls("error", operation, code=code, **selector)

    @classmethod
    def partial_put(cls, **selector):
        """PutRecords entries fail with ProvisionedThroughputExceededException inside a 200; the
        selector picks entries (not calls), only the other entries are forwarded. Entries of a
        stream the proxy cannot list (no such stream) are left to Kinesis."""
        return cls("partial", "PutRecords", code="ProvisionedThroughputExceededException", **selector)

    @classmethod
    def delay(cls, operation, seconds, **selector):
        """Wait `seconds` before forwarding the request."""
        return cls("delay", operation, seconds=seconds, **selector)

    @classmethod
    def reset(cls, operation, **selector):
        """Forward, then send the status line, headers and half the body and drop the connection
        (HTTP/2: reset the stream)."""
        return cls("reset", operation, **selector)

    @classmethod
    def hang(cls, operation, seconds, **selector):
        """Accept the request, say nothing for `seconds`, then close (never forwarded)."""
        return cls("hang", operation, seconds=seconds, **selector)

    @classmethod
    def end_subscription_early(cls, after_events=3, **selector):
        """End a SubscribeToShard stream cleanly after `after_events` SubscribeToShardEvents."""
        return cls("end_early", "SubscribeToShard", after_events=after_events, **selector)

    @classmethod
    def cut_mid_event(cls, after_events=1, **selector):
        """After `after_events` whole events, send half of the next one and drop the stream
        (HTTP/2: RST_STREAM; HTTP/1.1: drop the connection)."""
        return cls("cut", "SubscribeToShard", after_events=after_events, **selector)

    # -- selection -------------------------------------------------------------------------------

    def fires(self, rng):
        """Whether this fault hits the next candidate; counts it."""
        with self._lock:
            if self.until is not None and self.injected >= self.until:
                return False
            self.seen += 1
            if self.share is not None:
                hit = rng.random() < self.share
            elif self.first is not None:
                hit = self.seen <= self.first
            else:
                hit = self.seen % self.every == 0
            if hit:
                self.injected += 1
            return hit

    def __repr__(self):
        selector = {
            k: v
            for k, v in (("share", self.share), ("first", self.first), ("every", self.every), ("until", self.until))
            if v is not None
        }
        return f"Fault({self.kind}, {self.operation}, code={self.code}, {selector})"
