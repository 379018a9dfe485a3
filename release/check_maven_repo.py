# SPDX-License-Identifier: Apache-2.0
"""Checks a staged Maven repository (make release) against what Maven Central requires of a
release, offline: for each artifact a main jar, a sources jar and a javadoc jar; a POM with
coordinates, name, description, url, licenses, scm and developers; md5 and sha1 checksums of
every file that match it; PGP signatures (.asc) when --signed; no SNAPSHOT anywhere.

    python release/check_maven_repo.py <repository> <version> <artifactId>...

Prints one line per artifact checked and every problem found; exits 1 when there is one.
"""

import argparse
import hashlib
import subprocess
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

GROUP = "io.github.sparkkinesis"
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
# What the connector's jar must carry beyond classes: its license, NOTICE and the registration
# that makes format("kinesis") known to Spark.
MAIN_JAR_ENTRIES = (
    "META-INF/LICENSE",
    "META-INF/NOTICE",
    "META-INF/services/org.apache.spark.sql.sources.DataSourceRegister",
)


def check_artifact(repo, version, artifact, signed):
    """The problems of one artifact's directory, as sentences."""
    directory = repo / Path(*GROUP.split(".")) / artifact / version
    base = directory / f"{artifact}-{version}"
    files = {
        kind: Path(f"{base}{suffix}")
        for kind, suffix in (("jar", ".jar"), ("sources", "-sources.jar"), ("javadoc", "-javadoc.jar"), ("pom", ".pom"))
    }
    problems = [f"{path.name} is missing" for path in files.values() if not path.is_file()]
    if problems:
        return problems
    # Beside the four files only their checksums and signatures.
    expected = {path.name + suffix for path in files.values() for suffix in ("", ".md5", ".sha1", ".asc")}
    problems += [
        f"{path.name} is not part of the release" for path in sorted(directory.iterdir()) if path.name not in expected
    ]
    for path in files.values():
        problems += check_checksums(path)
        if signed:
            problems += check_signature(path)
    problems += check_pom(files["pom"], artifact, version)
    problems += check_jar(
        files["jar"], MAIN_JAR_ENTRIES, lambda names: any(n.endswith(".class") for n in names), "no classes"
    )
    problems += check_jar(
        files["sources"], (), lambda names: any(n.endswith(".scala") for n in names), "no .scala sources"
    )
    problems += check_jar(files["javadoc"], (), lambda names: "index.html" in names, "no index.html")
    return problems


def check_checksums(path):
    problems = []
    data = path.read_bytes()
    for algorithm in ("md5", "sha1"):
        checksum = Path(f"{path}.{algorithm}")
        if not checksum.is_file():
            problems.append(f"{checksum.name} is missing")
            continue
        # The file holds the hex digest, possibly followed by the file name.
        recorded = checksum.read_text().split()[0].lower() if checksum.read_text().split() else ""
        if recorded != hashlib.new(algorithm, data).hexdigest():
            problems.append(f"{checksum.name} does not match {path.name}")
    return problems


def check_signature(path):
    signature = Path(f"{path}.asc")
    if not signature.is_file():
        return [f"{signature.name} is missing"]
    done = subprocess.run(["gpg", "--batch", "--verify", str(signature), str(path)], capture_output=True, text=True)
    return [] if done.returncode == 0 else [f"{signature.name} does not verify: {done.stderr.strip()[-300:]}"]


def check_pom(pom, artifact, version):
    try:
        root = ET.parse(pom).getroot()
    except ET.ParseError as error:
        return [f"{pom.name} is not XML: {error}"]

    def text(path):
        found = root.find(path, POM_NS)
        return (found.text or "").strip() if found is not None else ""

    problems = []
    for path, wanted in (
        ("m:modelVersion", "4.0.0"),
        ("m:groupId", GROUP),
        ("m:artifactId", artifact),
        ("m:version", version),
    ):
        if text(path) != wanted:
            problems.append(f"{pom.name}: <{path[2:]}> is {text(path)!r}, not {wanted!r}")
    for path in (
        "m:name",
        "m:description",
        "m:url",
        "m:licenses/m:license/m:name",
        "m:licenses/m:license/m:url",
        "m:scm/m:url",
        "m:scm/m:connection",
    ):
        if not text(path):
            problems.append(f"{pom.name}: <{path.replace('m:', '')}> is missing or empty")
    developers = root.findall("m:developers/m:developer", POM_NS)
    if not developers or not all((d.findtext("m:name", "", POM_NS) or "").strip() for d in developers):
        problems.append(f"{pom.name}: <developers> needs at least one developer, each with a <name>")
    if "SNAPSHOT" in pom.read_text():
        problems.append(f"{pom.name}: names a SNAPSHOT version; Maven Central takes releases only")
    # The published jar is the assembly: a dependency would bring in what it shades.
    if root.find("m:dependencies", POM_NS) is not None:
        problems.append(f"{pom.name}: has <dependencies>; the assembly jar is published without any")
    return problems


def check_jar(jar, required, has_content, lacking):
    try:
        with zipfile.ZipFile(jar) as archive:
            names = set(archive.namelist())
            bad = archive.testzip()
    except zipfile.BadZipFile:
        return [f"{jar.name} is not a jar (zip)"]
    problems = [f"{jar.name} lacks {entry}" for entry in required if entry not in names]
    if bad:
        problems.append(f"{jar.name}: {bad} is corrupt")
    if not has_content(names):
        problems.append(f"{jar.name} has {lacking}")
    return problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repository", type=Path, help="the staged Maven repository (its root)")
    parser.add_argument("version", help="the release version, e.g. 1.0.0")
    parser.add_argument("artifacts", nargs="+", help="the artifactIds that must be there")
    parser.add_argument("--signed", action="store_true", help="require a verifying .asc for every file")
    args = parser.parse_args(argv)
    if "SNAPSHOT" in args.version:
        parser.error(f"version {args.version} is a SNAPSHOT; Maven Central takes releases only")
    failed = False
    for artifact in args.artifacts:
        problems = check_artifact(args.repository, args.version, artifact, args.signed)
        print(f"{GROUP}:{artifact}:{args.version}: " + ("ok" if not problems else f"{len(problems)} problem(s)"))
        for problem in problems:
            print(f"  - {problem}")
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
