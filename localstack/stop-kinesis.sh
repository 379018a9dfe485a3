#!/usr/bin/env bash
# Stops the kinesis-mock started by start-kinesis.sh (same KINESIS_LOCAL_RUN_DIR): TERM,
# then KILL after KINESIS_LOCAL_STOP_GRACE seconds (default 5). Exits 0 if none runs.
# On TERM kinesis-mock waits for its clients to close their keep-alive connections (a
# running Spark query, an open boto3 client), so the grace is short: without persistence
# (SHOULD_PERSIST_DATA, off by default) it has nothing to save and KILL loses nothing.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/kinesis-common.sh"

grace="${KINESIS_LOCAL_STOP_GRACE:-5}"
pid="$(read_pid)"

if [[ -z "$pid" ]] || ! kinesis_alive "$pid"; then
  rm -f "$pid_file" "$endpoint_file"
  echo "kinesis-mock is not running (run dir $run_dir)"
  exit 0
fi

kill -TERM "$pid" 2>/dev/null || true
deadline=$((SECONDS + grace))
while kinesis_alive "$pid" && (( SECONDS < deadline )); do sleep 0.1; done
if kinesis_alive "$pid"; then
  echo "kinesis-mock (pid $pid) still waiting for clients to disconnect after ${grace}s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  while kinesis_alive "$pid"; do sleep 0.1; done
fi

rm -f "$pid_file" "$endpoint_file"
echo "kinesis-mock stopped (pid $pid)"
