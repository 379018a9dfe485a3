#!/usr/bin/env bash
# Stops the moto server started by start-moto.sh (same MOTO_LOCAL_RUN_DIR): TERM, then KILL
# after MOTO_LOCAL_STOP_GRACE seconds (default 5). Exits 0 if none runs.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/moto-common.sh"

grace="${MOTO_LOCAL_STOP_GRACE:-5}"
pid="$(read_pid)"

if [[ -z "$pid" ]] || ! moto_alive "$pid"; then
  rm -f "$pid_file" "$endpoint_file"
  echo "moto is not running (run dir $run_dir)"
  exit 0
fi

kill -TERM "$pid" 2>/dev/null || true
deadline=$((SECONDS + grace))
while moto_alive "$pid" && (( SECONDS < deadline )); do sleep 0.1; done
if moto_alive "$pid"; then
  echo "moto (pid $pid) still running after ${grace}s, killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
  while moto_alive "$pid"; do sleep 0.1; done
fi

rm -f "$pid_file" "$endpoint_file"
echo "moto stopped (pid $pid)"
