# SPDX-License-Identifier: Apache-2.0
"""The package's unit tests (a package, so their conftest is not the end-to-end tests' to mypy)."""
