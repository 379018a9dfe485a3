# SPDX-License-Identifier: Apache-2.0
"""The results table: one row per reliability run, in results/latest.md, so a run of the suite
leaves the table (fault x mode x trigger -> produced, read, lost, duplicated, injected) to
paste into a report. The file is started afresh by the first row of a pytest session."""

import time
from pathlib import Path

RESULTS = Path(__file__).parent / "results" / "latest.md"
COLUMNS = ["fault", "mode", "trigger", "produced", "read", "lost", "duplicated", "injected", "seconds", "result"]
_started = False


def record(**row):
    """Appends a row (the COLUMNS as keyword arguments; injected a Counter or dict)."""
    global _started
    RESULTS.parent.mkdir(exist_ok=True)
    if not _started:
        RESULTS.write_text(
            f"Reliability runs of {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n"
            f"| {' | '.join(COLUMNS)} |\n|{'---|' * len(COLUMNS)}\n"
        )
        _started = True
    injected = row.get("injected") or {}
    row["injected"] = ", ".join(f"{op} {kind}: {n}" for (op, kind), n in sorted(injected.items())) or "-"
    row["seconds"] = f"{row['seconds']:.0f}"
    with RESULTS.open("a") as f:
        f.write(f"| {' | '.join(str(row.get(c, '')) for c in COLUMNS)} |\n")
