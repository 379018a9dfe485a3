# SPDX-License-Identifier: Apache-2.0
# Sourced by start-moto.sh and stop-moto.sh: where the run files live, and how to tell that
# the pid in the pid file is still our moto server (a recycled pid is not mistaken for it,
# and a zombie counts as gone: see process-common.sh).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_dir="${MOTO_LOCAL_RUN_DIR:-$here/.run-moto}"
pid_file="$run_dir/moto.pid"
log_file="$run_dir/moto.log"
endpoint_file="$run_dir/moto.endpoint"

source "$here/process-common.sh"

moto_alive() { process_alive "$1" "moto.server"; }
