# SPDX-License-Identifier: Apache-2.0
"""Checkpoints written by an earlier release stay readable (docs/compatibility.md). The fixtures
under tests/fixtures/ are checkpoints of real queries, kept as that release wrote them; the
current build must read their positions and continue a query from them."""

import shutil
from pathlib import Path

import pytest

from faults import Fault
from streaming import kinesis_reader, make_records, run_available_now

FIXTURES = Path(__file__).resolve().parent / "fixtures"
# Each fixture: a polling query's checkpoint after one batch over a 2-shard stream of this name.
CHECKPOINTS = {"checkpoint-0.1.0": "test-06a56bd6066e"}


@pytest.mark.parametrize("fixture", sorted(CHECKPOINTS))
def test_a_checkpoint_of_an_earlier_release_is_continued(spark, kinesis, fault_proxy, tmp_path, fixture):
    stream = CHECKPOINTS[fixture]
    kinesis.create_stream(name=stream, shards=2)
    records = make_records(30, "after-upgrade")
    kinesis.put_records(stream, records)
    checkpoint = tmp_path / "chk"
    shutil.copytree(FIXTURES / fixture, checkpoint)
    # The stream here is not the one the fixture read: it was created later, which the source
    # would refuse as a stream deleted and created again. Without DescribeStreamSummary that
    # check is skipped (docs/permissions.md), so the rest of the checkpoint is what is tested.
    # Its positions are older than any record here, as if retention had passed them:
    # failOnDataLoss=false goes on from the oldest record left.
    fault_proxy.add(Fault.error("DescribeStreamSummary", "AccessDeniedException", every=1))
    df = kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint, failOnDataLoss="false")

    run_available_now(df, tmp_path / "out", checkpoint)

    # The files themselves: the sink's own log starts at the fixture's batch 1, not at 0.
    rows = spark.read.parquet(str(tmp_path / "out/*.parquet")).collect()
    assert sorted(r.partitionKey for r in rows) == sorted(k for k, _ in records)
    assert (checkpoint / "commits/1").exists(), "the query did not continue the fixture's batch 0"
