# SPDX-License-Identifier: Apache-2.0
# Sourced by kinesis-common.sh and moto-common.sh: the pid-file handling both local services
# share. A service script sets pid_file, endpoint_file and run_dir, then calls these.

# True when pid $1 runs a program whose command line contains $2. Checks the command line so
# that a recycled pid is not mistaken for ours, and treats a zombie as gone: where PID 1 does
# not reap orphans (some VM and container inits) a killed server stays <defunct> but holds no port.
process_alive() {
  local pid="$1" pattern="$2" state cmd
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  if [[ -r "/proc/$pid/stat" ]]; then
    state="$(sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | cut -d' ' -f1)"
    [[ -n "$state" && "$state" != Z ]] || return 1
    cmd="$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")" || return 1
  else
    cmd="$(ps -p "$pid" -o args= 2>/dev/null || true)"
  fi
  [[ "$cmd" == *"$pattern"* ]]
}

read_pid() { [[ -f "$pid_file" ]] && cat "$pid_file" || true; }

# stop_process NAME PATTERN GRACE LATE_NOTE: TERM, then KILL after GRACE seconds; removes
# the run files; exits quietly when nothing runs.
stop_process() {
  local name="$1" pattern="$2" grace="$3" late_note="$4" pid deadline
  pid="$(read_pid)"
  if [[ -z "$pid" ]] || ! process_alive "$pid" "$pattern"; then
    rm -f "$pid_file" "$endpoint_file"
    echo "$name is not running (run dir $run_dir)"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + grace))
  while process_alive "$pid" "$pattern" && (( SECONDS < deadline )); do sleep 0.1; done
  if process_alive "$pid" "$pattern"; then
    echo "$name (pid $pid) $late_note after ${grace}s, killing it" >&2
    kill -KILL "$pid" 2>/dev/null || true
    while process_alive "$pid" "$pattern"; do sleep 0.1; done
  fi
  rm -f "$pid_file" "$endpoint_file"
  echo "$name stopped (pid $pid)"
}
