#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Starts moto's server (STS, IAM, and a Kinesis that checks SigV4 signatures and IAM
# policies once authentication is switched on) in the background on 127.0.0.1, and waits
# until it answers. moto comes from PyPI (requirements-dev.txt pins it; `make venv`).
# Env: MOTO_LOCAL_PORT (5000), MOTO_LOCAL_RUN_DIR (localstack/.run-moto: pid, log, endpoint),
#      MOTO_LOCAL_PYTHON (the repo's .venv/bin/python if there, else python3),
#      MOTO_LOCAL_START_TIMEOUT (30 s).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/moto-common.sh"

port="${MOTO_LOCAL_PORT:-5000}"
timeout="${MOTO_LOCAL_START_TIMEOUT:-30}"
python="${MOTO_LOCAL_PYTHON:-}"
if [[ -z "$python" ]]; then
  if [[ -x "$here/../.venv/bin/python" ]]; then python="$here/../.venv/bin/python"; else python=python3; fi
fi
endpoint="http://127.0.0.1:$port"

[[ "$port" =~ ^[0-9]+$ ]] && (( port > 0 && port < 65536 )) \
  || { echo "start-moto.sh: invalid port '$port'" >&2; exit 1; }
"$python" -c 'import moto.server, flask' 2>/dev/null \
  || { echo "start-moto.sh: $python has no moto[server]; run 'make venv' (requirements-dev.txt)" >&2; exit 1; }
mkdir -p "$run_dir"

pid="$(read_pid)"
if [[ -n "$pid" ]]; then
  if moto_alive "$pid"; then
    echo "moto is already running (pid $pid, $(cat "$endpoint_file" 2>/dev/null || echo "endpoint unknown"), run dir $run_dir)"
    exit 0
  fi
  rm -f "$pid_file" "$endpoint_file"
fi

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  echo "start-moto.sh: port $port on 127.0.0.1 is already in use; choose MOTO_LOCAL_PORT" >&2
  exit 1
fi

log_tail() { echo "--- last lines of $log_file ---" >&2; tail -n 40 "$log_file" >&2 || true; }

cd "$run_dir"
started=$SECONDS
# Authentication starts off (moto's default), so fixtures can create users, roles and
# streams; tests switch it on with POST /moto-api/reset-auth.
nohup "$python" -m moto.server -H 127.0.0.1 -p "$port" >"$log_file" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"

until "$python" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/moto-api/', timeout=2)" \
    "$endpoint" 2>/dev/null; do
  if ! moto_alive "$pid"; then
    echo "start-moto.sh: moto (pid $pid) exited during startup" >&2
    log_tail; rm -f "$pid_file"; exit 1
  fi
  if (( SECONDS - started >= timeout )); then
    echo "start-moto.sh: moto (pid $pid) did not answer on $endpoint within ${timeout}s" >&2
    log_tail; "$here/stop-moto.sh" >/dev/null; exit 1
  fi
  sleep 0.2
done

echo "$endpoint" >"$endpoint_file"
echo "moto running: pid $pid, $endpoint, up after $((SECONDS - started))s, log $log_file"
