# SPDX-License-Identifier: Apache-2.0
"""make bench's report on small synthetic results (no benchmark runs): the chart has a panel
for each kind of row that ran and none for the others."""

import sys
from datetime import datetime, timezone
from pathlib import Path

import matplotlib.image

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_report import PANEL_WIDTH_PX, chart, panels, raw_rows, write_report  # noqa: E402

IDLE = {"row": "idle", "seconds": 1.0, "command": "make bench", "results": [{"build": "now", "cores": 0.07}]}
POLLING = {
    "row": "polling",
    "seconds": 1.0,
    "command": "make bench",
    "results": [
        {"build": "now", "records_per_cpu_s": 120000.0},
        {"build": "bare SDK ceiling", "records_per_cpu_s": 250000.0},
    ],
}
LATENCY = {
    "row": "latency-low",
    "seconds": 1.0,
    "command": "make bench",
    "results": [
        {"build": "now", "p50_ms": 200, "p90_ms": 300, "p99_ms": 400, "max_ms": 500, "records": 1000, "cores": 0.9}
    ],
}
SINK = {
    "row": "sink",
    "seconds": 1.0,
    "command": "make bench",
    "results": [
        {
            "build": "now, aggregation none",
            "records_per_s": 15000.0,
            "records_per_cpu_s": 35000.0,
            "records": 200000,
            "kinesis_records": 200000,
            "seconds": 13.0,
        }
    ],
}


def panel_count(png):
    return matplotlib.image.imread(png).shape[1] // PANEL_WIDTH_PX


def test_one_panel_per_kind_of_row_that_ran(tmp_path):
    assert [title for title, _, _ in panels([IDLE])] == ["cores used by the Spark JVM"]
    assert len(panels([POLLING, IDLE])) == 2
    # a latency row fills the latency panel and the cores panel
    assert len(panels([LATENCY])) == 2
    assert chart([IDLE], tmp_path / "idle.png")
    assert panel_count(tmp_path / "idle.png") == 1
    assert chart([POLLING, LATENCY], tmp_path / "three.png")
    assert panel_count(tmp_path / "three.png") == 3


def test_rows_without_a_panel_draw_no_chart(tmp_path):
    started = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)
    (report,) = write_report([SINK], [("now", "now.jar")], started, tmp_path)
    assert not report.with_suffix(".png").exists()
    text = report.read_text()
    assert "![chart]" not in text and "15,000 rows/s" in text

    failed = {"row": "idle", "seconds": 1.0, "command": "make bench", "results": [{"build": "-", "error": "boom"}]}
    assert panels([failed]) == []

    sink, idle = write_report([SINK, IDLE], [("now", "now.jar")], started, tmp_path)
    assert not sink.with_suffix(".png").exists()
    assert "![chart](idle.png)" in idle.read_text()
    assert panel_count(idle.with_suffix(".png")) == 1


def test_each_row_has_one_current_file_that_its_next_run_replaces(tmp_path):
    first = datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc)
    write_report([LATENCY, IDLE], [("now", "now.jar")], first, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idle.md", "idle.png", "latency-low.md", "latency-low.png"]
    idle_before = (tmp_path / "idle.md").read_text()

    results: list = LATENCY["results"]  # type: ignore[assignment]
    faster = {**LATENCY, "results": [{**results[0], "p50_ms": 150, "p99_ms": 333}]}
    (report,) = write_report([faster], [("now", "now.jar")], datetime(2026, 2, 3, 4, 5, tzinfo=timezone.utc), tmp_path)
    assert report == tmp_path / "latency-low.md"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["idle.md", "idle.png", "latency-low.md", "latency-low.png"]
    text = report.read_text()
    assert "2026-02-03 04:05 UTC" in text and "p50 **150 ms**" in text
    assert "**200 ms**" not in text and "**400**" not in text, "the row's last run stayed in its file"
    assert [row["results"] for row in raw_rows(report)] == [faster["results"]]
    assert (tmp_path / "idle.md").read_text() == idle_before, "a row that did not run lost its file"


def test_the_chart_is_drawn_from_every_results_file_including_other_tools(tmp_path):
    other = tmp_path / "realtime-latency-batches-5s.md"
    other.write_text("# make bench-realtime\n\n| run | p50 |\n|---|---|\n| real-time, EFO | 16 |\n")
    assert raw_rows(other) == []
