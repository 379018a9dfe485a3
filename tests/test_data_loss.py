"""End to end, failOnDataLoss: a query restarted after records it had not read yet were deleted
by retention (the fault proxy emulates the trim) fails with KINESIS_DATA_LOSS, or with
failOnDataLoss=false goes on from the oldest record left and counts the loss."""

import pytest

from streaming import READ_MODES, kinesis_reader, make_records, mode_options, run_available_now


@pytest.mark.parametrize("mode", READ_MODES)
def test_records_trimmed_before_a_restart_fail_the_query_or_are_counted(spark, kinesis, fault_proxy, tmp_path, mode):
    stream = kinesis.create_stream(shards=1)
    read = dict(mode_options(mode), endpoint=fault_proxy.endpoint)
    out, checkpoint = tmp_path / "out", tmp_path / "checkpoint"
    first = make_records(3, "first")
    kinesis.put_records(stream, first)
    run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)

    later = make_records(6, "later")
    seqs = [seq for _, seq in kinesis.put_records(stream, later)]
    fault_proxy.trim(stream, "shardId-000000000000", seqs[3])  # later[0:3] expire unread

    with pytest.raises(Exception, match="KINESIS_DATA_LOSS") as failure:
        run_available_now(kinesis_reader(spark, kinesis, stream, **read), out, checkpoint)
    assert "shardId-000000000000" in str(failure.value) and seqs[3] in str(failure.value)

    query = run_available_now(kinesis_reader(spark, kinesis, stream, failOnDataLoss="false", **read), out, checkpoint)
    keys = sorted(r.partitionKey for r in spark.read.parquet(str(out)).collect())
    assert keys == sorted(k for k, _ in first + later[3:])
    losses = max(int(p["sources"][0]["metrics"].get("dataLossEvents", 0)) for p in query.recentProgress
                 if p["sources"][0].get("metrics"))
    assert losses == 1
    assert fault_proxy.injected[("GetShardIterator", "trimmed")] > 0
