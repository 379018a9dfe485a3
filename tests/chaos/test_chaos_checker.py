# SPDX-License-Identifier: Apache-2.0
"""The checker's promises about records trimmed past retention, on made-up sink contents (no
Spark, no Kinesis): a record a trim made unreadable may be missing, any other may not, and a
loss with failOnDataLoss false must be counted."""

import json
from collections import namedtuple

import chaos_checker as check

Row = namedtuple("Row", "data batch shardId sequenceNumber")
PRODUCED = [("k0", 1), ("k0", 2), ("k1", 1), ("k1", 2)]


def rows(pairs):
    return [Row(json.dumps({"key": k, "n": n}), 0, "shardId-0", i) for i, (k, n) in enumerate(pairs)]


def test_a_trimmed_record_may_be_missing_from_the_table_but_no_other():
    trimmed = frozenset({("k0", 1)})
    assert check.source_reads_each_record_once(PRODUCED, rows(PRODUCED[1:]), True, trimmed) == []
    broken = check.source_reads_each_record_once(PRODUCED, rows(PRODUCED[:3]), True, trimmed)
    assert broken == ["1 records lost, e.g. [('k1', 2)]"]
    assert check.source_reads_each_record_once(PRODUCED, rows(PRODUCED[1:]), True) != []


def test_a_trimmed_row_may_be_missing_from_the_target_stream_and_ids_still_name_one_row_each():
    stored = [("p", json.dumps({"key": k, "n": n}).encode(), f"id-{k}-{n}") for k, n in PRODUCED[1:]]
    assert check.sink_stores_each_row(PRODUCED, stored, True, True, frozenset({("k0", 1)})) == []
    assert check.sink_stores_each_row(PRODUCED, stored, True, True) == ["1 rows never stored, e.g. [('k0', 1)]"]


def test_ids_may_name_other_rows_only_once_records_were_trimmed():
    ids = ["a", "b", "b"]  # the batch ran again without the trimmed ("k0", 1): row numbers moved
    stored = [("p", json.dumps({"key": k, "n": n}).encode(), i) for (k, n), i in zip(PRODUCED[1:], ids)]
    assert check.sink_stores_each_row(PRODUCED, stored, True, False, frozenset({("k0", 1)})) == []
    whole = [("p", json.dumps({"key": k, "n": n}).encode(), i) for (k, n), i in zip(PRODUCED, ["z", *ids])]
    assert any("ids name more than one row" in b for b in check.sink_stores_each_row(PRODUCED, whole, True, False))
    # A real-time first run wrote ("k0", 1) before the trim; the batch ran again without it.
    assert check.sink_stores_each_row(PRODUCED, whole, True, False, frozenset({("k0", 1)}), real_time=True) == []


def test_in_real_time_mode_repeats_may_keep_new_ids_but_an_id_still_names_one_row():
    # The first run wrote k0 1 and k0 2 under batch 1; the run again stopped after k0 1, so k0 2
    # came again under batch 2.
    stored = [
        ("p", json.dumps({"key": k, "n": n}).encode(), i) for (k, n), i in zip(PRODUCED, ["1/0", "1/1", "x", "y"])
    ]
    again = [*stored, ("p", json.dumps({"key": "k0", "n": 2}).encode(), "2/0")]
    assert check.sink_stores_each_row(PRODUCED, again, True, True, real_time=True) == []
    assert any("after dropping repeats by id" in b for b in check.sink_stores_each_row(PRODUCED, again, True, True))
    shared = [*stored, ("p", json.dumps({"key": "k1", "n": 1}).encode(), "1/0")]
    assert any(
        "ids name more than one row" in b
        for b in check.sink_stores_each_row(PRODUCED, shared, True, True, real_time=True)
    )


def test_a_loss_with_fail_on_data_loss_false_is_counted():
    assert check.loss_is_counted({("k0", 1)}, 0) == ["1 records lost to retention, but no data loss counted"]
    assert check.loss_is_counted({("k0", 1)}, 1) == []
    assert check.loss_is_counted(set(), 0) == []


def _offsets(positions):
    return json.dumps({"version": 1, "shards": {"s": positions}})


def test_the_restart_position_is_read_from_the_batch_not_committed_or_else_the_last_end(tmp_path):
    from chaos_runner import starts_naming_no_record

    assert starts_naming_no_record(tmp_path) == set(), "a checkpoint with nothing in it"
    (tmp_path / "sources" / "0").mkdir(parents=True)
    initial = _offsets({"a": {"type": "trim_horizon"}, "b": {"type": "at", "seq": "1"}})
    (tmp_path / "sources" / "0" / "kinesis-initial-offset.json").write_text(initial)
    assert starts_naming_no_record(tmp_path) == {"a"}
    (tmp_path / "offsets").mkdir()
    (tmp_path / "commits").mkdir()
    (tmp_path / "offsets" / "0").write_text("v1\n{}\n" + _offsets({"a": {"type": "after", "seq": "5"}}))
    assert starts_naming_no_record(tmp_path) == {"a"}, "batch 0 runs again from the initial offset"
    (tmp_path / "commits" / "0").write_text("v1\n{}\n")
    assert starts_naming_no_record(tmp_path) == set(), "batch 0 committed: the next starts at its end"


def test_an_unfinished_first_batch_end_is_cleared_as_the_troubleshooting_page_says(tmp_path):
    from chaos_runner import clear_unfinished_first_batch

    (tmp_path / "offsets").mkdir()
    (tmp_path / "commits").mkdir()
    (tmp_path / "commits" / ".0.crc").write_text("")
    (tmp_path / "commits" / ".0.5f1e.tmp").write_text("v1")
    assert clear_unfinished_first_batch(tmp_path) == ["commits/.0.5f1e.tmp", "commits/.0.crc"]
    assert list((tmp_path / "commits").iterdir()) == []
    (tmp_path / "commits" / "0").write_text("v1\n{}\n")
    (tmp_path / "commits" / ".1.crc").write_text("")
    assert clear_unfinished_first_batch(tmp_path) == [], "a log holding a batch is left as it is"


def test_a_loss_the_query_can_see_is_refused_or_counted_and_one_it_cannot_see_is_allowed_uncounted():
    trimmed, produced = frozenset({("k0", 1)}), PRODUCED
    assert check.losses_allowed(trimmed, produced, True, seen=True) == (frozenset(), False)
    assert check.losses_allowed(trimmed, produced, False, seen=True) == (trimmed, True)
    assert check.losses_allowed(trimmed, produced, True, seen=False) == (trimmed, False)
    assert check.losses_allowed(trimmed, produced, False, seen=False) == (trimmed, False)
    everything = frozenset(produced)
    assert check.losses_allowed(everything, produced, True, seen=True) == (everything, False), "it read none at all"
    assert check.losses_allowed(frozenset(), produced, False, seen=True) == (frozenset(), False)
