# SPDX-License-Identifier: Apache-2.0
"""The fault harness runs on the reliability suite's producer, comparison and query helpers."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "reliability"))
