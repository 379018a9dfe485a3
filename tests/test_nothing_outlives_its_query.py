# SPDX-License-Identifier: Apache-2.0
"""End to end, in every read mode: once a query stopped, nothing of it remains in the JVM (local
mode shares it between the driver and the executors): no thread named after it, no reader kept
between tasks, no open subscription, no SDK client, no credentials provider, no subscribe
limiter turn still in force. The connector counts these itself (LiveResources); the threads
are counted from the JVM's own list."""

import pytest
from realtime import deliveries, realtime_reader, start_realtime, wait_for

from streaming import READ_MODES, kinesis_reader, make_records, mode_options, run_available_now


def live_resources(spark):
    counts = spark._jvm.io.github.sparkkinesis.prefetch.LiveResources.countsJava()
    return {key: counts.get(key) for key in counts.keySet()}


def kinesis_threads(spark, stream):
    """The live JVM threads named after the query reading `stream` (prefetcher, block remover, release job)."""
    threads = spark._jvm.java.lang.Thread.getAllStackTraces().keySet().toArray()
    return sorted(t.getName() for t in threads if t.getName().startswith("kinesis-") and stream in t.getName())


def committed_rows(spark, sink):
    """The rows of the batches a file sink committed: its log names a batch's files once it commits."""
    log = sink / "_spark_metadata"
    return spark.read.parquet(str(sink)).count() if log.is_dir() and any(log.iterdir()) else 0


def held_beyond(spark, before):
    """What the connector holds now beyond `before` (an earlier count), by kind."""
    return {k: n - before.get(k, 0) for k, n in live_resources(spark).items() if n > before.get(k, 0)}


def assert_nothing_remains(spark, stream, before):
    """Nothing of the query on `stream`: no thread named after it, nothing the connector holds
    beyond what it held before the query (`before`). Earlier tests of the same session are
    judged by their own count, not by this one's."""

    # Subscribe limiter turns hold a call back for 5 s after it: they go then, not at once.
    def left():
        return held_beyond(spark, before), kinesis_threads(spark, stream)

    try:
        wait_for(lambda: left() == ({}, []), "nothing of the query to remain", timeout=30)
    except AssertionError:
        active = [q.name or str(q.id) for q in spark.streams.active]
        raise AssertionError(
            f"30 s after the query stopped, still open: {left()}; queries still active: {active}"
        ) from None


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_stopped_micro_batch_query_leaves_nothing(spark, kinesis, tmp_path, mode):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(40))
    before = live_resources(spark)
    run_available_now(
        kinesis_reader(spark, kinesis, stream, **mode_options(mode)), tmp_path / "sink", tmp_path / "checkpoint"
    )
    assert spark.read.parquet(str(tmp_path / "sink")).count() == 40
    assert_nothing_remains(spark, stream, before)


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_micro_batch_query_stopped_while_it_reads_leaves_nothing(spark, kinesis, tmp_path, mode):
    """Stopped by its user while its prefetcher reads on (rounds in flight, readers kept between
    tasks), rather than ended by itself as an available-now query is."""
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(40))
    before = live_resources(spark)
    sink = tmp_path / "sink"
    query = (
        kinesis_reader(spark, kinesis, stream, **mode_options(mode))
        .writeStream.format("parquet")
        .option("path", str(sink))
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(processingTime="1 second")
        .start()
    )
    try:
        # The rows themselves: processAllAvailable answers for what the source offered so far,
        # which a first trigger may find empty, not for what the stream holds.
        wait_for(lambda: committed_rows(spark, sink) >= 40, "every record in the sink", query)
        assert committed_rows(spark, sink) == 40
        assert query.isActive, "the query still runs when it is stopped"
    finally:
        query.stop()
    assert_nothing_remains(spark, stream, before)


@pytest.mark.parametrize("mode", READ_MODES)
def test_a_stopped_real_time_query_leaves_nothing(spark, kinesis, tmp_path, mode, short_batches):
    stream = kinesis.create_stream(shards=2)
    kinesis.put_records(stream, make_records(40))
    before = live_resources(spark)
    sink = tmp_path / "sink"
    query = start_realtime(realtime_reader(spark, kinesis, stream, **mode_options(mode)), sink, tmp_path / "checkpoint")
    try:
        wait_for(lambda: len(deliveries(sink)) >= 40, "every record to reach the sink", query)
    finally:
        query.stop()
    assert_nothing_remains(spark, stream, before)
