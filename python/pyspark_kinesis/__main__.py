# SPDX-License-Identifier: Apache-2.0
"""``python -m pyspark_kinesis``: see :mod:`pyspark_kinesis._cli`."""

import sys

from pyspark_kinesis._cli import main

if __name__ == "__main__":
    sys.exit(main())
