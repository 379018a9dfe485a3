#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stops the kinesis-mock started by start-kinesis.sh (same KINESIS_LOCAL_RUN_DIR): TERM,
# then KILL after KINESIS_LOCAL_STOP_GRACE seconds (default 5). Exits 0 if none runs.
# On TERM kinesis-mock waits for its clients to close their keep-alive connections (a
# running Spark query, an open boto3 client), so the grace is short: without persistence
# (SHOULD_PERSIST_DATA, off by default) it has nothing to save and KILL loses nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/kinesis-common.sh"

stop_process kinesis-mock "kinesis-local/main.js" "${KINESIS_LOCAL_STOP_GRACE:-5}" "still waiting for clients to disconnect"
