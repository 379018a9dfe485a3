# SPDX-License-Identifier: Apache-2.0
"""make bench's repeated rounds (no benchmark runs): each build's median run is the one reported,
and its ratio to awslabs' connector is the median of the ratios taken within each round."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench import steady_summary  # noqa: E402
from bench_report import figures  # noqa: E402

BUILDS = [("now, defaults", "now.jar", {}, False, 10), ("awslabs", "peer.jar", {}, True, 10)]


def run(records_per_cpu_s, calls=0.5):
    return {
        "records": 1000,
        "seconds": 60.0,
        "cpu_seconds": 1000 / records_per_cpu_s,
        "cores": 1000 / records_per_cpu_s / 60,
        "records_per_cpu_s": records_per_cpu_s,
        "records_per_cpu_s_besides_jit": 2 * records_per_cpu_s,
        "calls": 1,
        "calls_per_1000_records": calls,
    }


def test_the_median_run_is_reported_with_the_median_of_the_ratios_within_rounds():
    # The machine slows down between rounds: each round's ratio is 1.5, whatever the round's pace.
    rounds = [
        {"now, defaults": run(30000), "awslabs": run(20000, 2.0)},
        {"now, defaults": run(60000), "awslabs": run(40000, 2.0)},
        {"now, defaults": run(45000), "awslabs": run(30000, 2.0)},
    ]
    now, peer = steady_summary(BUILDS, rounds)
    assert now["records_per_cpu_s"] == 45000
    assert now["records_per_cpu_s_runs"] == [30000, 45000, 60000]
    assert now["records_per_cpu_s_vs_awslabs"] == 1.5
    assert now["records_per_cpu_s_vs_awslabs_range"] == [1.5, 1.5]
    assert now["calls_per_record_vs_awslabs"] == 0.25
    assert peer["records_per_cpu_s"] == 30000 and "records_per_cpu_s_vs_awslabs" not in peer
    line = figures("steady", now)
    assert "the median of 3 runs: 30,000, 45,000, 60,000" in line
    assert "**1.50x** awslabs' records/CPU-s (rounds 1.50x to 1.50x)" in line


def test_a_failed_round_leaves_the_others():
    rounds = [
        {"now, defaults": run(30000), "awslabs": {"build": "awslabs", "error": "OutOfMemoryError"}},
        {"now, defaults": run(50000), "awslabs": run(25000)},
    ]
    now, peer = steady_summary(BUILDS, rounds)
    assert now["records_per_cpu_s_vs_awslabs"] == 2.0
    assert "records_per_cpu_s_vs_awslabs_range" not in now
    assert peer["records_per_cpu_s"] == 25000 and peer["runs"] == 1


def idle_builds(monkeypatch, costs, alone=0.01):
    """make bench's idle builds faked: each connector build's runs cost the next of `costs` (a
    cost, or (cost, host yardstick)); Spark alone costs `alone` (a cost, or an iterator of them)."""
    import bench

    specs = []
    monkeypatch.setattr(bench, "BenchKinesis", FakeKinesis)

    def one_build(label, kind, jar, spec):
        specs.append((label, spec))
        if label == bench.SPARK_ALONE:
            return {"build": label, "cores": alone if isinstance(alone, float) else next(alone)}
        cost = next(costs)
        cores, host_ms = cost if isinstance(cost, tuple) else (cost, None)
        return {"build": label, "cores": cores, **({"host_unit_ms": host_ms} if host_ms else {})}

    monkeypatch.setattr(bench, "one_build", one_build)
    return specs


def test_the_idle_row_reports_the_costlier_of_two_runs(monkeypatch):
    import bench

    idle_builds(monkeypatch, iter([0.022, 0.041]))
    args = type("Args", (), {"repeats": 2, "idle_warmup_s": 300, "window_s": 30})()
    now, _ = bench.ROWS["idle"](args, [("now", "now.jar")])
    assert now["cores"] == 0.041
    assert now["cores_runs"] == [0.022, 0.041]
    assert "the costlier middle one of 2 runs: 0.022, 0.041" in figures("idle", now)


def test_the_idle_row_measures_spark_alone_in_the_same_rounds_and_what_the_connector_adds(monkeypatch):
    import bench

    # The host slows down in the second round: both queries cost more, the connector's share does not.
    specs = idle_builds(monkeypatch, iter([0.012, 0.042, 0.014]), alone=iter([0.010, 0.040, 0.010]))
    args = type("Args", (), {"repeats": 3, "idle_warmup_s": 300, "window_s": 30})()
    now, alone = bench.ROWS["idle"](args, [("now", "now.jar")])
    # Every round measures both, each round starting one further on.
    assert [label for label, _ in specs] == ["now", "Spark alone", "Spark alone", "now", "now", "Spark alone"]
    assert all(spec["spark_alone"] and "endpoint" not in spec for label, spec in specs if label == "Spark alone")
    assert alone["build"] == "Spark alone" and alone["cores"] == 0.010
    assert round(now["cores_over_spark_alone"], 6) == 0.002
    line = figures("idle", now)
    assert "**0.014 cores** with nothing to read" in line
    assert "against Spark alone, **+0.002 cores** (the median of the rounds)" in line
    assert "against Spark alone" not in figures("idle", alone)


def test_the_idle_row_gives_the_host_yardstick_of_each_run_beside_its_cost(monkeypatch):
    import bench

    idle_builds(monkeypatch, iter([(0.041, 9.0), (0.022, 4.5), (0.030, 6.0)]))
    args = type("Args", (), {"repeats": 3, "idle_warmup_s": 300, "window_s": 30})()
    now, _ = bench.ROWS["idle"](args, [("now", "now.jar")])
    line = figures("idle", now)
    # Each run's yardstick in the order of the runs' cost, so a reader pairs them.
    assert "runs: 0.022, 0.030, 0.041" in line
    assert "host yardstick 6.00 CPU-ms (runs: 4.50, 6.00, 9.00)" in line


def test_the_host_yardstick_measures_its_unit_while_the_block_runs():
    import statistics
    import time

    from host_speed import unit_ms, yardstick

    assert unit_ms() > 0
    with yardstick(every_s=0.01) as host:
        deadline = time.monotonic() + 60
        while len(host.units) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    assert len(host.units) >= 3 and all(ms > 0 for ms in host.units)
    assert host.ms == statistics.median(host.units)


def test_the_idle_efo_row_reads_through_a_consumer_and_reports_as_the_idle_row(monkeypatch):
    import bench

    specs = idle_builds(monkeypatch, iter([0.03, 0.01, 0.02]))
    args = type("Args", (), {"repeats": 3, "idle_warmup_s": 300, "window_s": 30})()
    now, _ = bench.ROWS["idle-efo"](args, [("now", "now.jar")])
    assert all(s["options"]["consumerMode"] == "efo" and s["options"]["consumerName"] for b, s in specs if b == "now")
    assert now["cores"] == 0.02
    assert "the median of 3 runs: 0.010, 0.020, 0.030" in figures("idle-efo", now)


class FakeKinesis:
    endpoint = "http://127.0.0.1:1"

    def __init__(self, args):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
