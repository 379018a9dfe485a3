# SPDX-License-Identifier: Apache-2.0
"""The fault proxy's per-shard limits, as Kinesis applies them (no Kinesis needed)."""

from faults.limits import PUT_BYTES_PER_SECOND, Limits

MIB = 1024 * 1024


def test_a_record_over_a_second_of_writes_bursts_then_the_shard_waits_for_its_debt():
    limits = Limits()
    shard = ("stream", "shardId-000000000000")
    assert limits.admit_put(shard, 3 * MIB), "a 3 MiB record on a stream raised to 10 MiB records is taken"
    assert not limits.admit_put(shard, 1000), "the shard is in debt after the burst"
    assert limits.put_bytes.available(shard) < -PUT_BYTES_PER_SECOND


def test_records_within_a_second_of_writes_are_taken_until_it_is_used():
    limits = Limits()
    shard = ("stream", "shardId-000000000000")
    assert limits.admit_put(shard, 600 * 1024)
    assert not limits.admit_put(shard, 600 * 1024), "1.2 MiB in the same second is over the limit"
