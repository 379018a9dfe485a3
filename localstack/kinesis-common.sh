# SPDX-License-Identifier: Apache-2.0
# Sourced by start-kinesis.sh and stop-kinesis.sh: where the run files live, and how to
# tell that the pid in the pid file is still our kinesis-mock.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_dir="${KINESIS_LOCAL_RUN_DIR:-$here/.run}"
pid_file="$run_dir/kinesis.pid"
log_file="$run_dir/kinesis.log"
endpoint_file="$run_dir/kinesis.endpoint"

source "$here/process-common.sh"

kinesis_alive() { process_alive "$1" "kinesis-local/main.js"; }
