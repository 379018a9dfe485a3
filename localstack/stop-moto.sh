#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stops the moto server started by start-moto.sh (same MOTO_LOCAL_RUN_DIR): TERM, then KILL
# after MOTO_LOCAL_STOP_GRACE seconds (default 5). Exits 0 if none runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/moto-common.sh"

stop_process moto "moto.server" "${MOTO_LOCAL_STOP_GRACE:-5}" "still running"
