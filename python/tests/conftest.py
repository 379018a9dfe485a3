# SPDX-License-Identifier: Apache-2.0
"""Test the package from this source tree, whether or not a wheel of it is installed."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
