# Sourced by start-kinesis.sh and stop-kinesis.sh: where the run files live, and how to
# tell that the pid in the pid file is still our kinesis-mock.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_dir="${KINESIS_LOCAL_RUN_DIR:-$here/.run}"
pid_file="$run_dir/kinesis.pid"
log_file="$run_dir/kinesis.log"
endpoint_file="$run_dir/kinesis.endpoint"

# True when pid $1 runs kinesis-mock. Checks the command line so that a recycled pid is
# not mistaken for ours, and treats a zombie as gone: where PID 1 does not reap orphans
# (some VM and container inits) a killed server stays <defunct> but holds no port.
kinesis_alive() {
  local pid="$1" state cmd
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/stat" ]]; then
    state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
    [[ -n "$state" && "$state" != Z ]] || return 1
    cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || return 1
  else
    cmd="$(ps -p "$pid" -o args= 2>/dev/null || true)"
  fi
  [[ "$cmd" == *kinesis-local/main.js* ]]
}

read_pid() { [[ -f "$pid_file" ]] && cat "$pid_file" || true; }
