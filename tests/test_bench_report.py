# SPDX-License-Identifier: Apache-2.0
"""make bench's report on small synthetic results (no benchmark runs): the chart has a panel
for each kind of row that ran and none for the others."""

import sys
from datetime import datetime, timezone
from pathlib import Path

import matplotlib.image

sys.path.insert(0, str(Path(__file__).resolve().parent / "benchmarks"))
from bench_report import PANEL_WIDTH_PX, chart, panels, write_report  # noqa: E402

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
    "results": [{"build": "now", "p50_ms": 200, "p99_ms": 400, "cores": 0.9}],
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
    report = write_report([SINK], [("now", "now.jar")], started, tmp_path)
    assert not report.with_suffix(".png").exists()
    text = report.read_text()
    assert "![chart]" not in text and "15,000 rows/s" in text

    failed = {"row": "idle", "seconds": 1.0, "command": "make bench", "results": [{"build": "-", "error": "boom"}]}
    assert panels([failed]) == []

    report = write_report([SINK, IDLE], [("now", "now.jar")], started, tmp_path)
    assert f"![chart]({report.stem}.png)" in report.read_text()
    assert panel_count(report.with_suffix(".png")) == 1
