# SPDX-License-Identifier: Apache-2.0
"""The randomized fault harness: each seed draws a run (chaos_generator), whose faults the
nemesis programs (chaos_nemesis), and the checker (chaos_checker) verifies what the docs
promise. `make test` runs the seeds of DEFAULT_SEEDS; `make test-chaos` draws CHAOS_RUNS runs
from CHAOS_FIRST_SEED, or exactly the seeds of CHAOS_SEEDS (comma-separated): a failure names
its seed and the command that replays it."""

import os

import pytest
from chaos_generator import draw
from chaos_nemesis import CATALOG
from chaos_runner import execute, replay_command

from faults import FaultProxy

DEFAULT_SEEDS = (3, 7)


def seeds():
    if os.environ.get("CHAOS_SEEDS"):
        return [int(s) for s in os.environ["CHAOS_SEEDS"].split(",") if s.strip()]
    if os.environ.get("CHAOS_RUNS"):
        first = int(os.environ.get("CHAOS_FIRST_SEED", "1000"))
        return list(range(first, first + int(os.environ["CHAOS_RUNS"])))
    return list(DEFAULT_SEEDS)


@pytest.mark.chaos
@pytest.mark.parametrize("seed", seeds())
def test_a_drawn_run_keeps_every_promise(seed, spark, kinesis, tmp_path, request):
    if not kinesis.endpoint.startswith("http://"):
        pytest.skip("the fault proxy forwards to a plain http Kinesis (kinesis-mock)")
    run = draw(seed)
    print(run.describe())
    # moto (IAM and STS) only for the runs that sign as a role: it starts once a session.
    moto = request.getfixturevalue("moto") if any(CATALOG[name].signs_as for name in run.faults) else None
    with FaultProxy(upstream=kinesis.endpoint, seed=seed) as proxy:  # its random draws replay with the seed
        broken = execute(run, spark, kinesis, proxy, tmp_path, moto)
    assert not broken, f"{run.describe()}\nreplay: {replay_command(seed)}\n" + "\n".join(broken)
