# SPDX-License-Identifier: Apache-2.0
"""The JVMs of a Spark application, found through /proc: the tests that kill an executor and
the soak run that watches memory and threads share these."""

from pathlib import Path


def executor_pids(driver_pid):
    """The executor JVMs a local-cluster driver started: its children running the executor
    backend (none with local[n], where the executors run inside the driver)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == driver_pid and "CoarseGrainedExecutorBackend" in cmd:
            pids.append(int(proc.name))
    return pids


def proc_status(pid):
    """Resident memory (MB) and thread count of a process."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        fields[key] = value.strip()
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"])
