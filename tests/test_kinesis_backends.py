# SPDX-License-Identifier: Apache-2.0
"""The choice of local Kinesis for the end-to-end tests (KINESIS_BACKEND, docs/testing-backends.md)."""

import pytest

from kinesis_local import chosen_backend, kinesis_for_tests
from localstack_container import BackendUnavailable, docker_daemon_problem


def test_an_unknown_backend_is_refused_naming_the_choices(monkeypatch):
    monkeypatch.setenv("KINESIS_BACKEND", "kinesalite")
    with pytest.raises(ValueError, match="KINESIS_BACKEND='kinesalite'.*kinesis-mock.*localstack"):
        chosen_backend()


def test_kinesis_mock_is_the_default(monkeypatch):
    monkeypatch.delenv("KINESIS_BACKEND", raising=False)
    assert chosen_backend() == "kinesis-mock"


def test_a_docker_host_that_does_not_answer_is_named(monkeypatch, tmp_path):
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path / 'no-such.sock'}")
    problem = docker_daemon_problem()
    assert problem is not None and "no-such.sock" in problem


def test_localstack_serves_the_tests_kinesis_or_says_why_not(monkeypatch, tmp_path):
    """With a Docker daemon: a stream created, written and read on LocalStack. Without one
    (as on the project's build machines): skipped with the reason."""
    monkeypatch.delenv("KINESIS_ENDPOINT", raising=False)
    monkeypatch.setenv("KINESIS_BACKEND", "localstack")
    try:
        with kinesis_for_tests(tmp_path) as kinesis:
            stream = kinesis.create_stream(shards=1)
            [(shard, _)] = kinesis.put_records(stream, [("key", b"payload")])
            iterator = kinesis.client.get_shard_iterator(
                StreamName=stream, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
            )["ShardIterator"]
            records = kinesis.client.get_records(ShardIterator=iterator)["Records"]
            assert [r["Data"] for r in records] == [b"payload"]
    except BackendUnavailable as unavailable:
        pytest.skip(str(unavailable))
