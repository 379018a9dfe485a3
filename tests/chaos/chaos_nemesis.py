# SPDX-License-Identifier: Apache-2.0
"""The nemesis: the faults a run can draw, each a few lines. A fault says where it applies
(consumer mode, trigger, sink) and programs the fault proxy when the run starts, or acts once
a share of the records reached the sink (`at`, `act`), or while the query is stopped for its
restart (`at_restart`); resharding and restarts are done by the runner at the share of
records the run drew."""

import json
from dataclasses import dataclass
from typing import Callable, Optional

from expiring_roles import expiring_role

from faults import Fault
from streaming import read_shard, user_records

THROTTLED = "ProvisionedThroughputExceededException"


@dataclass(frozen=True)
class ChaosFault:
    program: Callable = lambda proxy: None  # program(proxy): adds its faults
    at: Optional[float] = None  # the share of the records in the sink when `act` runs
    # act(kinesis, source stream, run, query): True once done; False to be called again at the next look.
    act: Callable = lambda kinesis, source, run, query: True
    # at_restart(kinesis, proxy, source): the (key, n) records it may make unreadable; drawn
    # apart from the other faults, on runs that restart (chaos_generator.draw).
    at_restart: Optional[Callable] = None
    # signs_as(moto, proxy): source options that make the query sign with other credentials
    # (which the proxy may refuse past their expiry); the runner starts the query with them.
    signs_as: Optional[Callable] = None
    # Only for a query in a JVM of its own (chaos_cluster), drawn with that placement.
    cluster_only: bool = False
    modes: tuple = ("polling", "efo")
    triggers: tuple = ("available-now", "micro-batch", "real-time")
    sinks: tuple = ("table", "kinesis")

    def applies(self, mode, trigger, sink):
        return mode in self.modes and trigger in self.triggers and sink in self.sinks


def deregister_consumer(kinesis, source, run, query):
    """An operator deregisters the query's EFO consumer while it reads (boto3): done (True)
    once it is ACTIVE, since a query started a moment ago may still be registering it."""
    client, name = kinesis.client, f"sparkkinesis_{consumer_name(run)}"
    arn = client.describe_stream_summary(StreamName=source)["StreamDescriptionSummary"]["StreamARN"]
    consumers = client.list_stream_consumers(StreamARN=arn)["Consumers"]
    if not any(c["ConsumerName"] == name and c["ConsumerStatus"] == "ACTIVE" for c in consumers):
        return False
    client.deregister_stream_consumer(StreamARN=arn, ConsumerName=name)
    return True


def trim_a_shard(kinesis, proxy, source):
    """Retention deletes the records of the source's first shard up to its newest one, while
    the query is stopped: those it had not read yet are lost. The records that may be lost."""
    client = kinesis.client
    shard = client.list_shards(StreamName=source)["Shards"][0]["ShardId"]
    records = read_shard(client, source, shard)
    if len(records) < 2:
        return frozenset()
    proxy.trim(source, shard, records[-1]["SequenceNumber"])
    return frozenset(_pair(data) for _, data, _ in user_records(records[:-1]))


def expiring_credentials(moto, proxy):
    """The query reads as an assumed role whose credentials STS issues for six seconds; AWS
    refuses a request signed past that (the proxy does as it does), so every call and
    subscription after the first seconds needs credentials renewed mid-run."""
    options, _ = expiring_role(moto, proxy, "chaos")
    return options


def _pair(data):
    body = json.loads(data)
    return body["key"], body["n"]


def consumer_name(run):
    return f"chaos-{run.seed}"


def _add(*faults):
    def program(proxy):
        for fault in faults:
            proxy.add(fault)

    return program


CATALOG = {
    "GetRecords throttled": ChaosFault(_add(Fault.error("GetRecords", THROTTLED, share=0.3)), modes=("polling",)),
    "GetRecords answers lost": ChaosFault(_add(Fault.reset("GetRecords", share=0.05)), modes=("polling",)),
    "GetRecords slow": ChaosFault(_add(Fault.delay("GetRecords", 0.5, share=0.1)), modes=("polling",)),
    "GetShardIterator failing": ChaosFault(
        _add(Fault.error("GetShardIterator", "InternalFailure", first=2)), modes=("polling",)
    ),
    "ListShards failing": ChaosFault(_add(Fault.error("ListShards", "LimitExceededException", share=0.2))),
    "subscriptions ended early": ChaosFault(
        _add(Fault.end_subscription_early(after_events=3, first=3)), modes=("efo",)
    ),
    "subscriptions cut mid-event": ChaosFault(_add(Fault.cut_mid_event(after_events=2, first=2)), modes=("efo",)),
    "SubscribeToShard refused": ChaosFault(
        _add(Fault.error("SubscribeToShard", "LimitExceededException", first=2)), modes=("efo",)
    ),
    "Kinesis limits": ChaosFault(lambda proxy: proxy.limits(True)),
    "PutRecords answers lost": ChaosFault(_add(Fault.reset("PutRecords", first=2)), sinks=("kinesis",)),
    "PutRecords entries refused": ChaosFault(_add(Fault.partial_put(share=0.2)), sinks=("kinesis",)),
    "consumer deleted outside the query": ChaosFault(at=0.4, act=deregister_consumer, modes=("efo",)),
    "records trimmed past retention": ChaosFault(at_restart=trim_a_shard),
    "credentials expiring": ChaosFault(signs_as=expiring_credentials),
    "executor killed": ChaosFault(at=0.3, act=lambda k, s, r, query: query.kill_executor(), cluster_only=True),
    "driver killed": ChaosFault(at=0.5, act=lambda k, s, r, query: query.kill_driver(), cluster_only=True),
}
