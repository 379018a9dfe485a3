# SPDX-License-Identifier: Apache-2.0
"""A run's query in a JVM of its own: spark-submit on a local-cluster of two executor JVMs, so
that the nemesis can kill an executor or the driver itself (SIGKILL), which it cannot do to
the test session's JVM. `ClusterQuery` answers the runner as a StreamingQuery does."""

import os
import signal

from spark_app import App

from processes import executor_pids


class ClusterQuery:
    """The app reading `options` into the table `out` (harness.start_query, micro-batches)."""

    def __init__(self, options, out, checkpoint, log, java_properties=None):
        self.out = out
        self.stop_file = out.parent / "STOP"
        config = {"options": options, "out": str(out), "checkpoint": str(checkpoint), "trigger": "micro-batch"}
        # System properties of the driver's JVM (the test-only session length, read with the options).
        flags = " ".join(f"-D{key}={value}" for key, value in (java_properties or {}).items())
        confs = {"spark.driver.extraJavaOptions": flags} if flags else None
        self.app = App(config, log, confs=confs)
        self.killed = False

    @property
    def isActive(self):
        return self.app.process.poll() is None

    def exception(self):
        """What failed the app (the end of its log), None while it runs or when it was killed."""
        if self.isActive or self.killed or self.app.process.returncode == 0:
            return None
        self.app.log.flush()
        return f"the app failed (exit {self.app.process.returncode}): {open(self.app.log.name).read()[-3000:]}"

    @property
    def source_metrics(self):
        return list(self.app.metrics)

    def stop(self):
        """As StreamingQuery.stop: the app stops its query and ends (killed if it does not)."""
        if self.isActive:
            self.stop_file.write_text("stop")
            try:
                self.app.process.wait(timeout=180)
            except Exception:
                self.app.process.kill()
                self.app.process.wait()
        self.stop_file.unlink(missing_ok=True)
        self.app.close()

    def kill_executor(self):
        """SIGKILL to one of its executor JVMs; False while it has none yet (still starting)."""
        victims = executor_pids(self.app.process.pid) if self.isActive else []
        if not victims:
            return False
        os.kill(victims[0], signal.SIGKILL)
        return True

    def kill_driver(self):
        """SIGKILL to the driver's JVM; its executors end once they lose it. The runner starts
        the query again from its checkpoint, as a scheduler restarts a failed job."""
        if not self.isActive:
            return False
        self.killed = True
        os.kill(self.app.process.pid, signal.SIGKILL)
        self.app.process.wait()
        return True
