# Sourced by start-moto.sh and stop-moto.sh: where the run files live, and how to tell that
# the pid in the pid file is still our moto server (a recycled pid is not mistaken for it,
# and a zombie counts as gone, as in kinesis-common.sh).
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
run_dir="${MOTO_LOCAL_RUN_DIR:-$here/.run-moto}"
pid_file="$run_dir/moto.pid"
log_file="$run_dir/moto.log"
endpoint_file="$run_dir/moto.endpoint"

moto_alive() {
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
  [[ "$cmd" == *moto.server* ]]
}

read_pid() { [[ -f "$pid_file" ]] && cat "$pid_file" || true; }
