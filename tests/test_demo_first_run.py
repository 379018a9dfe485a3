# SPDX-License-Identifier: Apache-2.0
"""The demo's first run does not depend on the state of the local Maven repository: with a
~/.m2 that holds Delta's POM but not its jar (as any Maven user's machine can), the demo's
Spark session still starts and writes and reads a Delta table. Spark resolving Delta through
spark.jars.packages (Ivy) fails there; the demo gives Spark jar files instead."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "examples" / "demo"
sys.path.insert(0, str(DEMO))

from delta_jars import delta_artifact, delta_jars  # noqa: E402
from watch_events_demo import DELTA_JARS_DIR  # noqa: E402


def plant_poms_without_jars(home):
    """Delta's POMs in home/.m2, with no jar beside them: Delta itself and delta-storage (Ivy
    finds the latter in the local Maven repository first)."""
    group, name, version = delta_artifact().split(":")
    for artifact in (name, "delta-storage"):
        folder = home / ".m2" / "repository" / group.replace(".", "/") / artifact / version
        folder.mkdir(parents=True)
        (folder / f"{artifact}-{version}.pom").write_text(
            textwrap.dedent(f"""\
            <?xml version="1.0" encoding="UTF-8"?>
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>{group}</groupId>
              <artifactId>{artifact}</artifactId>
              <version>{version}</version>
              <packaging>jar</packaging>
            </project>
            """)
        )


SESSION_SCRIPT = """
import sys
sys.path.insert(0, {demo!r})
from watch_events_demo import spark_session

spark = spark_session({jars!r})
spark.range(5).write.format("delta").save({table!r})
print("rows in the delta table:", spark.read.format("delta").load({table!r}).count())
spark.stop()
"""


def test_the_demo_session_writes_delta_with_a_pom_but_no_jar_in_the_local_maven_repository(tmp_path):
    delta_jars(DELTA_JARS_DIR)  # fetched once, with the real Maven settings (make demo does the same)
    home = tmp_path / "home"
    plant_poms_without_jars(home)
    script = SESSION_SCRIPT.format(demo=str(DEMO), jars=str(DELTA_JARS_DIR), table=str(tmp_path / "table"))
    # The JVM takes its home (where Ivy looks for ~/.m2 and its cache) from user.home, not HOME.
    env = dict(os.environ, HOME=str(home), JAVA_TOOL_OPTIONS=f"-Duser.home={home}", SPARK_LOCAL_IP="127.0.0.1")
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rows in the delta table: 5" in done.stdout
