# SPDX-License-Identifier: Apache-2.0
"""End to end: record ids. A query copies a stream into another with recordIds through the
fault proxy, which makes the sink write some rows twice (a PutRecords whose answer was lost, a
batch run again after its task failed), in micro-batches and in real-time mode through the
foreach writer; the target really holds repeats, and a reader with includeRecordIds and
dropDuplicatesWithinWatermark on recordId gets every row exactly once."""

import re
from pathlib import Path

import pytest
from pyspark.errors import PySparkException
from realtime import committed_batches, realtime_reader, wait_for

from faults import Fault
from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis
from streaming import kinesis_reader, make_records, read_deaggregated

ROWS = 120
DOCS = Path(__file__).resolve().parent.parent / "docs"


def docs_reader(spark, kinesis, stream):
    """The reader of docs/writing.md's "Exactly once after deduplication" (its Python block that
    reads), run as written: only the stream and the place of Kinesis differ, and it starts at
    the trim horizon and prefetches for 2 s (as every test read). Its DataFrame `once`."""
    text = (DOCS / "writing.md").read_text()
    section = text[text.index("## Exactly once after deduplication\n") :]
    blocks = [b for b in re.findall(r"```python\n(.*?)```", section, re.S) if "include_record_ids" in b]
    assert blocks, "docs/writing.md's recipe has no Python reader"
    code = blocks[0]
    for name, value in [
        ('"orders-clean"', repr(stream)),
        (
            '.region("us-east-1")',
            f".region({kinesis.region!r}).endpoint({kinesis.endpoint!r})"
            '.initial_position("trim_horizon").max_fetch_duration("2s")',
        ),
    ]:
        assert name in code, f"the recipe no longer has {name}: update this test with the page"
        code = code.replace(name, value)
    scope = {"spark": spark}
    exec(compile(code, "docs/writing.md", "exec"), scope)
    return scope["once"]


def _copy(spark, kinesis, endpoint, source, target, checkpoint, **options):
    """An available-now query copying `source` to `target` with recordIds; the ended query."""
    query = (
        kinesis_reader(spark, kinesis, source)
        .select("partitionKey", "data")
        .writeStream.format("kinesis")
        .option("streamName", target)
        .option("endpoint", endpoint)
        .option("region", kinesis.region)
        .option("recordIds", "true")
        .option("checkpointLocation", str(checkpoint))
        .options(**options)
        .trigger(availableNow=True)
        .start()
    )
    try:
        query.awaitTermination(240)
    except PySparkException:
        pass  # A failed query raises here; the tests look at query.exception().
    return query


def _read(spark, kinesis, stream, tmp_path, name, deduplicate):
    """Every row of `stream` with its recordId, as an available-now streaming read writes them;
    with `deduplicate`, through the reader's recipe of docs/writing.md."""
    if deduplicate:
        df = docs_reader(spark, kinesis, stream)
    else:
        df = kinesis_reader(spark, kinesis, stream, includeRecordIds="true")
    query = (
        df.select("partitionKey", "data", "recordId")
        .writeStream.format("parquet")
        .option("path", str(tmp_path / name))
        .option("checkpointLocation", str(tmp_path / f"{name}-chk"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240), "the read did not finish"
    assert query.exception() is None, query.exception()
    return [(r.partitionKey, bytes(r.data), r.recordId) for r in spark.read.parquet(str(tmp_path / name)).collect()]


def _assert_repeats_then_exactly_once(spark, kinesis, target, records, tmp_path):
    raw = _read(spark, kinesis, target, tmp_path, "raw", deduplicate=False)
    assert len(raw) > len(records), "the faults made the sink write some rows twice"
    assert all(r[2] for r in raw), "every row the sink wrote carries an id"
    # A repeat carries the id of its first copy: as many ids as rows written.
    assert len({r[2] for r in raw}) == len(records)
    rows_of_id = {}
    for key, data, record_id in raw:
        rows_of_id.setdefault(record_id, set()).add((key, data))
    assert all(len(rows) == 1 for rows in rows_of_id.values()), "an id names one row"
    once = _read(spark, kinesis, target, tmp_path, "once", deduplicate=True)
    assert sorted((k, d) for k, d, _ in once) == sorted(records), "every row exactly once"


@pytest.mark.parametrize("aggregation", ["none", "kpl"])
def test_rows_whose_put_answer_was_lost_repeat_with_their_id_and_are_dropped_by_the_reader(
    spark, kinesis, fault_proxy, tmp_path, aggregation
):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=2)
    records = make_records(ROWS)
    kinesis.put_records(source, records)

    # The first two PutRecords calls reach Kinesis and lose their answer: they are sent again.
    fault_proxy.add(Fault.reset("PutRecords", first=2))
    query = _copy(spark, kinesis, fault_proxy.endpoint, source, target, tmp_path / "chk", aggregation=aggregation)
    assert query.exception() is None, query.exception()
    assert fault_proxy.injected[("PutRecords", "reset")] == 2

    _assert_repeats_then_exactly_once(spark, kinesis, target, records, tmp_path)


def test_a_batch_run_again_after_its_task_failed_gives_its_rows_the_same_ids(spark, kinesis, fault_proxy, tmp_path):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    records = make_records(ROWS)
    kinesis.put_records(source, records)

    # Half the entries refused and no retries: the task fails after Kinesis stored the others,
    # and with it the query; run again from its checkpoint, the batch writes every row again.
    fault_proxy.add(Fault.partial_put(share=0.5))
    failed = _copy(spark, kinesis, fault_proxy.endpoint, source, target, tmp_path / "chk", maxPutRetries="0")
    assert "KINESIS_SINK_PUT_FAILED" in str(failed.exception())
    fault_proxy.clear()
    again = _copy(spark, kinesis, fault_proxy.endpoint, source, target, tmp_path / "chk")
    assert again.exception() is None, again.exception()
    assert again.id == failed.id and again.runId != failed.runId

    _assert_repeats_then_exactly_once(spark, kinesis, target, records, tmp_path)
    raw = _read(spark, kinesis, target, tmp_path, "ids", deduplicate=False)
    assert all(record_id.startswith(f"{failed.id}/0/") for _, _, record_id in raw), "the query's id, batch 0"


def test_the_foreach_writer_tags_rows_with_the_streaming_querys_id(spark, kinesis, tmp_path):
    source, target = kinesis.create_stream(shards=1), kinesis.create_stream(shards=1)
    records = make_records(20)
    kinesis.put_records(source, records)
    out = KinesisSinkOptions().stream_name(target).region(kinesis.region).endpoint(kinesis.endpoint).record_ids(True)
    query = (
        foreach_kinesis(kinesis_reader(spark, kinesis, source).select("partitionKey", "data"), out)
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(availableNow=True)
        .start()
    )
    assert query.awaitTermination(240), "the copy did not finish"
    assert query.exception() is None, query.exception()

    rows = _read(spark, kinesis, target, tmp_path, "raw", deduplicate=False)
    assert sorted((k, d) for k, d, _ in rows) == sorted(records)
    assert sorted(int(i.split("/")[-1]) for _, _, i in rows) == list(range(len(records))), "one task's rows"
    assert {i.rsplit("/", 2)[0] for _, _, i in rows} == {f"{query.id}/0"}, "the query's id and batch 0"


def test_a_real_time_pipeline_whose_put_answers_were_lost_reads_exactly_once_after_deduplication(
    spark, kinesis, fault_proxy, tmp_path, short_batches
):
    source, target = kinesis.create_stream(shards=2), kinesis.create_stream(shards=2)
    records = make_records(ROWS)
    kinesis.put_records(source, records)

    # Kinesis stores the first two PutRecords calls of the foreach writer and their answers are lost.
    fault_proxy.add(Fault.reset("PutRecords", first=2))
    out = KinesisSinkOptions().stream_name(target).region(kinesis.region).endpoint(fault_proxy.endpoint)
    query = (
        foreach_kinesis(realtime_reader(spark, kinesis, source).select("partitionKey", "data"), out.record_ids(True))
        .outputMode("update")
        .option("checkpointLocation", str(tmp_path / "chk"))
        .trigger(realTime="2 seconds")  # type: ignore[call-overload]  # PySpark 4.2's annotations lack it
        .start()
    )
    # Each row is put as a KPL aggregate carrying its id: wait for every user record inside them.
    copied = lambda: {(key, data) for _, key, data, _ in read_deaggregated(kinesis, target)}  # noqa: E731
    try:
        wait_for(lambda: copied() >= set(records), "every row copied", query)
    finally:
        query.stop()
    assert fault_proxy.injected[("PutRecords", "reset")] == 2

    _assert_repeats_then_exactly_once(spark, kinesis, target, records, tmp_path)


def test_a_query_stopped_in_the_middle_of_a_batch_on_four_shards_keeps_every_row_once_after_deduplication(
    spark, kinesis, fault_proxy, tmp_path
):
    """docs/writing.md's recipe as a user meets it: several shards (whose small blocks the first
    run packs into one task), a query stopped while its first batch writes, started again from
    its checkpoint; the batch runs again with the same tasks, so each id names one row."""
    source, target = kinesis.create_stream(shards=4), kinesis.create_stream(shards=4)
    records = make_records(8000)
    kinesis.put_records(source, records)

    # Slow puts, one at a time, so that the stop comes in the middle of the batch's writes, once
    # it wrote more rows than any one shard holds.
    fault_proxy.add(Fault.delay("PutRecords", 1.0, share=1.0))
    checkpoint = tmp_path / "chk"
    stopped = (
        kinesis_reader(spark, kinesis, source)
        .select("partitionKey", "data")
        .writeStream.format("kinesis")
        .option("streamName", target)
        .option("endpoint", fault_proxy.endpoint)
        .option("region", kinesis.region)
        .option("recordIds", "true")
        .option("maxInFlightPuts", "1")
        .option("checkpointLocation", str(checkpoint))
        .trigger(availableNow=True)
        .start()
    )
    wait_for(lambda: fault_proxy.calls["PutRecords"] >= 8, "half the first batch's writes", stopped)
    stopped.stop()
    assert not committed_batches(checkpoint), "stopped before its first batch committed"
    fault_proxy.clear()

    again = _copy(spark, kinesis, fault_proxy.endpoint, source, target, checkpoint)
    assert again.exception() is None, again.exception()
    assert again.id == stopped.id
    _assert_repeats_then_exactly_once(spark, kinesis, target, records, tmp_path)


def test_a_real_time_query_stopped_in_the_middle_of_a_batch_never_gives_two_rows_one_id(
    spark, kinesis, fault_proxy, tmp_path, short_batches
):
    """docs/writing.md's real-time case: a real-time batch stopped while it writes runs again
    from its start after the restart, but ends by its own time, so rows the first run wrote past
    that point may come again with new ids. What holds: every row is stored, and each id names
    one row, so dropping repeats by id never drops a row."""
    source, target = kinesis.create_stream(shards=2), kinesis.create_stream(shards=1)
    first = make_records(10, "first")
    kinesis.put_records(source, first)
    out = KinesisSinkOptions().stream_name(target).region(kinesis.region).endpoint(fault_proxy.endpoint)
    checkpoint = tmp_path / "chk"

    def start():
        df = realtime_reader(spark, kinesis, source).select("partitionKey", "data")
        return (
            foreach_kinesis(df, out.record_ids(True))
            .outputMode("update")
            .option("checkpointLocation", str(checkpoint))
            .trigger(realTime="2 seconds")  # type: ignore[call-overload]  # PySpark 4.2's annotations lack it
            .start()
        )

    def copied():
        return {(key, data) for _, key, data, _ in read_deaggregated(kinesis, target)}

    query = start()
    try:
        # Spark cannot restart a real-time query stopped before its first commit: stop after one.
        wait_for(lambda: copied() >= set(first) and committed_batches(checkpoint), "the first batch's commit", query)
        # Slow puts, so that the stop comes while a batch writes the second wave.
        fault_proxy.add(Fault.delay("PutRecords", 0.3, share=1.0))
        calls = fault_proxy.calls["PutRecords"]
        later = make_records(ROWS, "later")
        kinesis.put_records(source, later)
        wait_for(lambda: fault_proxy.calls["PutRecords"] >= calls + 3, "a batch writing the second wave", query)
    finally:
        query.stop()
    fault_proxy.clear()

    query = start()
    try:
        wait_for(lambda: copied() >= set(first + later), "every row copied after the restart", query, timeout=180)
    finally:
        query.stop()

    raw = _read(spark, kinesis, target, tmp_path, "raw", deduplicate=False)
    assert all(r[2] for r in raw), "every row the sink wrote carries an id"
    rows_of_id = {}
    for key, data, record_id in raw:
        rows_of_id.setdefault(record_id, set()).add((key, data))
    assert all(len(rows) == 1 for rows in rows_of_id.values()), "an id names one row"
    kept = {next(iter(rows)) for rows in rows_of_id.values()}
    assert kept == set(first + later), "dropping repeats by id keeps every row"
