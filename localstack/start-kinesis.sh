#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Starts kinesis-mock in the background on 127.0.0.1 and waits until it answers API calls.
# Env: KINESIS_LOCAL_PLAIN_PORT (4568, http), KINESIS_LOCAL_TLS_PORT (4567, https + h2),
#      AWS_REGION (us-east-1), KINESIS_LOCAL_RUN_DIR (localstack/.run: pid, log, endpoint),
#      KINESIS_LOCAL_START_TIMEOUT (60 s), KINESIS_LOCAL_LOG_LEVEL (INFO),
#      KINESIS_LOCAL_BIND_HOST (127.0.0.1), KINESIS_LOCAL_CERT_PATH (the bundled server.json),
#      and kinesis-mock's own *_DURATION, SHARD_LIMIT,
#      INITIALIZE_STREAMS ... which are passed through.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/kinesis-common.sh"

plain_port="${KINESIS_LOCAL_PLAIN_PORT:-4568}"
tls_port="${KINESIS_LOCAL_TLS_PORT:-4567}"
region="${AWS_REGION:-us-east-1}"
timeout="${KINESIS_LOCAL_START_TIMEOUT:-60}"
endpoint="http://127.0.0.1:$plain_port"

for port in "$plain_port" "$tls_port"; do
  [[ "$port" =~ ^[0-9]+$ ]] && (( port > 0 && port < 65536 )) \
    || { echo "start-kinesis.sh: invalid port '$port'" >&2; exit 1; }
done
mkdir -p "$run_dir"

pid="$(read_pid)"
if [[ -n "$pid" ]]; then
  if kinesis_alive "$pid"; then
    echo "kinesis-mock is already running (pid $pid, $(cat "$endpoint_file" 2>/dev/null || echo "endpoint unknown"), run dir $run_dir)"
    exit 0
  fi
  rm -f "$pid_file" "$endpoint_file"   # stale: the process is gone
fi

"$here/install.sh"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for port in "$plain_port" "$tls_port"; do
  if port_busy "$port"; then
    echo "start-kinesis.sh: port $port on 127.0.0.1 is already in use by a process not started from $run_dir;" \
         "stop it or choose KINESIS_LOCAL_PLAIN_PORT / KINESIS_LOCAL_TLS_PORT" >&2
    exit 1
  fi
done

# Durations default to 200 ms (kinesis-mock's own default is 500 ms) so tests that create,
# reshard and delete streams do not wait; SHARD_LIMIT 100 (default 50) leaves room for
# tests that each create a stream before the previous deletions finish.
export KINESIS_MOCK_PLAIN_PORT="$plain_port" KINESIS_MOCK_TLS_PORT="$tls_port" AWS_REGION="$region"
# The TLS port's certificate: kinesis-mock's own (self-signed, no subject alternative name, so
# Java's hostname check refuses it even when trusted), or KINESIS_LOCAL_CERT_PATH, a JSON file
# of the same form {"server": {"key": PEM, "cert": PEM}} (tests make one for 127.0.0.1).
export KINESIS_MOCK_CERT_PATH="${KINESIS_LOCAL_CERT_PATH:-$here/node_modules/kinesis-local/server.json}"
export LOG_LEVEL="${KINESIS_LOCAL_LOG_LEVEL:-INFO}"
export SHARD_LIMIT="${SHARD_LIMIT:-100}" ON_DEMAND_STREAM_COUNT_LIMIT="${ON_DEMAND_STREAM_COUNT_LIMIT:-50}"
for op in CREATE_STREAM DELETE_STREAM REGISTER_STREAM_CONSUMER DEREGISTER_STREAM_CONSUMER \
          START_STREAM_ENCRYPTION STOP_STREAM_ENCRYPTION MERGE_SHARDS SPLIT_SHARD \
          UPDATE_SHARD_COUNT UPDATE_STREAM_MODE; do
  var="${op}_DURATION"
  export "$var=${!var:-200ms}"
done

log_tail() { echo "--- last lines of $log_file ---" >&2; tail -n 40 "$log_file" >&2 || true; }

# cwd = run dir, so that anything kinesis-mock writes relative to cwd stays in it.
cd "$run_dir"
started=$SECONDS
nohup node --require "$here/loopback.js" "$here/node_modules/kinesis-local/main.js" \
  >"$log_file" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pid_file"

until node "$here/ping.js" "$plain_port"; do
  if ! kinesis_alive "$pid"; then
    echo "start-kinesis.sh: kinesis-mock (pid $pid) exited during startup" >&2
    log_tail; rm -f "$pid_file"; exit 1
  fi
  if (( SECONDS - started >= timeout )); then
    echo "start-kinesis.sh: kinesis-mock (pid $pid) did not answer ListStreams on $endpoint within ${timeout}s" >&2
    log_tail; "$here/stop-kinesis.sh" >/dev/null; exit 1
  fi
  sleep 0.2
done

echo "$endpoint" >"$endpoint_file"
echo "kinesis-mock running: pid $pid, $endpoint (https + HTTP/2 on port $tls_port), region $region," \
     "up after $((SECONDS - started))s, log $log_file"
