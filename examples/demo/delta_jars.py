# SPDX-License-Identifier: Apache-2.0
"""Delta Lake's jars for the demo, fetched with Maven into a folder and given to Spark as
``spark.jars``.

``configure_spark_with_delta_pip`` would name Delta in ``spark.jars.packages`` instead, which
Spark resolves with Ivy; Ivy takes a POM it finds in ``~/.m2`` as proof the jar is there too,
so a machine whose ``~/.m2`` holds one of Delta's POMs without its jar (any Maven user's can)
fails before the demo starts. Maven fetches what is missing, and Spark then only reads files.
"""

import re
import subprocess
import tempfile
from importlib import metadata
from pathlib import Path

import pyspark

SCALA_BINARY = "2.13"

# A throw-away project whose one dependency is Delta; Maven copies it and what it needs at
# run time, less what Spark's own jars already carry (Scala, log4j, Jackson, Hadoop, ...).
POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.demo</groupId>
  <artifactId>delta-jars</artifactId>
  <version>1</version>
  <dependencies>
    <dependency><groupId>{group}</groupId><artifactId>{name}</artifactId><version>{version}</version></dependency>
  </dependencies>
</project>
"""


def delta_artifact():
    """Delta's Maven coordinates for the installed pyspark and delta-spark, as
    ``configure_spark_with_delta_pip`` names them (one artifact per Spark line)."""
    spark_line = ".".join(pyspark.__version__.split(".")[:2])
    return f"io.delta:delta-spark_{spark_line}_{SCALA_BINARY}:{metadata.version('delta-spark')}"


def spark_artifact_ids():
    """The artifact ids of the jars pyspark ships (scala-library-2.13.16.jar -> scala-library)."""
    jars = (Path(pyspark.__file__).parent / "jars").glob("*.jar")
    return sorted({m.group(1) for jar in jars if (m := re.match(r"(.+?)-\d", jar.name))})


def delta_jars(folder):
    """Paths of Delta's jars and their run-time dependencies in ``folder/<version>``, fetched
    there with Maven the first time."""
    group, name, version = delta_artifact().split(":")
    target = Path(folder) / f"{name}-{version}"
    done = target / ".complete"
    if not done.is_file():
        target.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory() as project:
            pom = Path(project) / "pom.xml"
            pom.write_text(POM.format(group=group, name=name, version=version))
            subprocess.run(
                [
                    "mvn",
                    "-q",
                    "-B",
                    "-Dstyle.color=never",
                    "-f",
                    str(pom),
                    "dependency:copy-dependencies",
                    "-DincludeScope=runtime",
                    f"-DexcludeArtifactIds={','.join(spark_artifact_ids())}",
                    f"-DoutputDirectory={target}",
                ],
                check=True,
            )
        done.touch()
    return sorted(str(jar) for jar in target.glob("*.jar"))
