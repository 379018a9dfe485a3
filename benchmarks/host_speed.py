# SPDX-License-Identifier: Apache-2.0
"""A yardstick for the host: the CPU time a fixed piece of work (hashing 8 MiB) takes now. On a
shared machine the same work costs more CPU time in a busy minute than in a quiet one, for
every build alike; a CPU figure is read against the yardstick taken over the same window."""

import contextlib
import hashlib
import statistics
import threading
import time

_UNIT = bytes(8 << 20)


def unit_ms():
    """The CPU milliseconds this thread spends on one unit of work."""
    began = time.thread_time()
    hashlib.sha256(_UNIT).digest()
    return 1000 * (time.thread_time() - began)


class Yardstick:
    """The units measured while it ran; `ms` is their median (None when none was)."""

    def __init__(self):
        self.units = []

    @property
    def ms(self):
        return statistics.median(self.units) if self.units else None


@contextlib.contextmanager
def yardstick(every_s=1.0):
    """Measures a unit every `every_s` seconds on a thread of its own while the block runs (about
    half a percent of a core, outside the measured JVM)."""
    measured, done = Yardstick(), threading.Event()

    def measure():
        while not done.wait(every_s):
            measured.units.append(unit_ms())

    thread = threading.Thread(target=measure, daemon=True)
    thread.start()
    try:
        yield measured
    finally:
        done.set()
        thread.join()
