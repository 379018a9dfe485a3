# SPDX-License-Identifier: Apache-2.0
"""The checker: the promises the docs make, checked on what a run left behind. Each check
returns the broken promises as sentences; an empty list means the run kept every one."""

import json

from harness import compare

MIB = 1024 * 1024


def source_reads_each_record_once(produced, rows, ordered, may_lose=frozenset()):
    """Reading (the table sink): every produced record once (but those in `may_lose`, which a
    fault made unreadable, at most once), none nobody produced and, where each key's records
    go to one shard (`ordered`), each key's records in order (ARCHITECTURE.md invariants 1 and 2)."""
    c = compare(produced, rows)
    broken = []
    lost = sorted(set(produced) - may_lose - {_pair(r.data) for r in rows})
    if lost:
        broken.append(f"{len(lost)} records lost, e.g. {lost[:5]}")
    if c.duplicated:
        broken.append(f"{c.duplicated} records read twice")
    if c.unexpected:
        broken.append(f"{c.unexpected} records nobody produced, e.g. {c.examples['unexpected']}")
    if ordered:
        broken += [f"order: {e}" for e in c.order_errors[:5]]
    return broken


def sink_stores_each_row(produced, target_rows, record_ids, ordered, may_lose=frozenset(), real_time=False):
    """Writing (the kinesis sink): every row stored at least once (but those the source could
    not read, `may_lose`), first copies in order per
    key where the source had each key on one shard (`ordered`); with record ids, each id names
    one row, and dropping repeats by id leaves each row once (docs/writing.md, "Exactly once
    after deduplication"), unless records were trimmed past retention (`may_lose`): a batch
    run again without them has other rows, so its ids may name other rows, even when its first
    run had written them all (docs/writing.md says so). In real-time mode a batch
    run again ends where its own time does, so its later rows come again under new ids: there
    an id still names one row, but repeats may keep their copies (docs/writing.md)."""
    broken = []
    pairs = [_pair(data) for _, data, _ in target_rows]
    missing = set(produced) - may_lose - set(pairs)
    if missing:
        broken.append(f"{len(missing)} rows never stored, e.g. {sorted(missing)[:5]}")
    unexpected = set(pairs) - set(produced)
    if unexpected:
        broken.append(f"{len(unexpected)} rows nobody produced, e.g. {sorted(unexpected)[:5]}")
    seen, firsts = set(), {}
    for pair in pairs:
        if pair not in seen:
            seen.add(pair)
            firsts.setdefault(pair[0], []).append(pair[1])
    wrong = [key for key, ns in firsts.items() if ns != sorted(ns)]
    if wrong and ordered:
        broken.append(f"{len(wrong)} keys' first copies out of order, e.g. {wrong[0]}: {firsts[wrong[0]][:10]}")
    if record_ids and not may_lose:
        rows_of_id = {}
        for pair, (_, _, record_id) in zip(pairs, target_rows):
            if record_id is None:
                broken.append("a row without an id")
                break
            rows_of_id.setdefault(record_id, set()).add(pair)
        shared = [i for i, rows in rows_of_id.items() if len(rows) > 1]
        if shared:
            broken.append(
                f"{len(shared)} ids name more than one row, e.g. {shared[0]}: {sorted(rows_of_id[shared[0]])}"
            )
        once = sorted(next(iter(rows)) for rows in rows_of_id.values())
        if not real_time and once != sorted(set(pairs)):
            broken.append(f"after dropping repeats by id: {len(once)} rows where {len(set(pairs))} were stored")
    return broken


def losses_allowed(may_lose, produced, fail_on_data_loss, seen):
    """Which records trimmed past retention may be missing, and whether their loss must be
    counted. A loss the query can see (its restart position names a record) fails it with
    failOnDataLoss, so none may be missing unless it read none at all; without, it is counted.
    One it cannot see (docs/reading.md, "Data loss") may be missing either way, uncounted."""
    if fail_on_data_loss and seen and may_lose != set(produced):
        return frozenset(), False
    return may_lose, bool(may_lose) and seen and not fail_on_data_loss


def loss_is_counted(lost, data_loss_events):
    """With failOnDataLoss false, records lost to retention are counted (the dataLossEvents
    metric, docs/monitoring.md) when any is lost."""
    return [f"{len(lost)} records lost to retention, but no data loss counted"] if lost and not data_loss_events else []


def nothing_outlives_the_query(leaked, held):
    """After stop(): no thread the query started (prefetcher, release, remover, put threads,
    the SDK's event loops of its clients) is left, and the connector holds nothing (`held`:
    its own count of clients, providers, readers, subscriptions and limiter turns)."""
    broken = [f"threads left after stop: {sorted(leaked)[:8]}"] if leaked else []
    return broken + ([f"still held after stop: {held}"] if held else [])


def memory_stays_bounded(prefetched_peak, run):
    """Prefetched blocks stay within fetchBufferSize, plus what the round running when it
    filled reads: per task at most its hand-over (64 MiB) and the answers in flight (8 calls of
    up to 10 MiB each; ARCHITECTURE.md invariant 5)."""
    if not run.fetch_buffer:
        return []
    limit = _bytes(run.fetch_buffer)
    tasks = -(-run.shards // run.shards_per_task)
    bound = limit + tasks * (64 * MIB + 8 * 10 * MIB)
    return [f"{prefetched_peak} bytes prefetched, over the bound of {bound}"] if prefetched_peak > bound else []


def _pair(data):
    body = json.loads(data)
    return body["key"], body["n"]


def _bytes(size):
    units = {"kb": 1024, "mb": MIB, "gb": 1024 * MIB}
    return int(size[:-2]) * units[size[-2:]]
