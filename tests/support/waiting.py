# SPDX-License-Identifier: Apache-2.0
"""Waiting on what a test needs (a condition, or a query that has read all it was offered),
never on a fixed time: a wait ends as soon as it can, and a timeout says what it waited for."""

import threading
import time


def wait_for(condition, what, query=None, timeout=90.0, every=0.3):
    """Polls `condition` until it holds; fails with the query's exception if it has one, or
    after `timeout` seconds with `what` it waited for."""
    deadline = time.monotonic() + timeout
    while not condition():
        if query is not None and query.exception():
            raise query.exception()
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(every)


def settle(query, timeout=90.0):
    """Returns once a micro-batch query has processed everything its source offered, so a
    record read twice would be in its sink by now (Spark's processAllAvailable, bounded)."""
    done, failure = threading.Event(), []

    def process():
        try:
            query.processAllAvailable()
        except Exception as e:  # reported below, on the test's thread
            failure.append(e)
        finally:
            done.set()

    threading.Thread(target=process, daemon=True).start()
    assert done.wait(timeout), f"the query was still processing what its source offered after {timeout:.0f} s"
    if failure:
        raise failure[0]
