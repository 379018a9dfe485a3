# SPDX-License-Identifier: Apache-2.0
"""The offline checks make release runs (release/): they pass a well-formed staged artifact,
name what is wrong in a broken one, and verify signatures release/sign.sh makes."""

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

RELEASE = Path(__file__).resolve().parent.parent / "release"
sys.path.insert(0, str(RELEASE))

import check_maven_repo  # noqa: E402

ARTIFACT, VERSION = "spark-sql-kinesis-4.2_2.13", "1.2.3"
POM = f"""<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion><groupId>io.github.sparkkinesis</groupId>
  <artifactId>{ARTIFACT}</artifactId><version>{VERSION}</version><name>n</name><description>d</description>
  <url>https://example.org</url>
  <licenses><license><name>Apache-2.0</name><url>https://www.apache.org/licenses/LICENSE-2.0.txt</url></license></licenses>
  <scm><url>https://example.org</url><connection>scm:git:https://example.org.git</connection></scm>
  <developers><developer><name>someone</name></developer></developers>
</project>"""


def write_with_checksums(path, data):
    path.write_bytes(data)
    for algorithm in ("md5", "sha1"):
        Path(f"{path}.{algorithm}").write_text(hashlib.new(algorithm, data).hexdigest())


def jar_bytes(tmp_path, entries):
    jar = tmp_path / "scratch.jar"
    with zipfile.ZipFile(jar, "w") as archive:
        for name in entries:
            archive.writestr(name, "x")
    data = jar.read_bytes()
    jar.unlink()
    return data


@pytest.fixture
def staged(tmp_path):
    """A staged repository with one artifact as make release stages it; its directory."""
    directory = tmp_path / "repo" / "io" / "github" / "sparkkinesis" / ARTIFACT / VERSION
    directory.mkdir(parents=True)
    base = directory / f"{ARTIFACT}-{VERSION}"
    write_with_checksums(Path(f"{base}.jar"), jar_bytes(tmp_path, [*check_maven_repo.MAIN_JAR_ENTRIES, "a/B.class"]))
    write_with_checksums(Path(f"{base}-sources.jar"), jar_bytes(tmp_path, ["a/B.scala"]))
    write_with_checksums(Path(f"{base}-javadoc.jar"), jar_bytes(tmp_path, ["index.html"]))
    write_with_checksums(Path(f"{base}.pom"), POM.encode())
    return directory


def problems(directory, signed=False):
    return check_maven_repo.check_artifact(directory.parents[4], VERSION, ARTIFACT, signed)


def test_a_well_formed_artifact_passes(staged):
    assert problems(staged) == []


def test_a_missing_javadoc_jar_is_named(staged):
    Path(staged / f"{ARTIFACT}-{VERSION}-javadoc.jar").unlink()
    assert problems(staged) == [f"{ARTIFACT}-{VERSION}-javadoc.jar is missing"]


def test_a_checksum_that_does_not_match_is_named(staged):
    Path(staged / f"{ARTIFACT}-{VERSION}.jar.sha1").write_text("0" * 40)
    assert problems(staged) == [f"{ARTIFACT}-{VERSION}.jar.sha1 does not match {ARTIFACT}-{VERSION}.jar"]


def test_a_pom_without_licenses_and_with_dependencies_is_refused(staged):
    pom = POM.replace("<licenses>", "<dependencies/><x>").replace("</licenses>", "</x>")
    write_with_checksums(staged / f"{ARTIFACT}-{VERSION}.pom", pom.encode())
    found = problems(staged)
    assert any("<licenses/license/name> is missing" in p for p in found)
    assert any("has <dependencies>" in p for p in found)


def test_a_jar_without_license_and_notice_is_refused(staged, tmp_path):
    write_with_checksums(staged / f"{ARTIFACT}-{VERSION}.jar", jar_bytes(tmp_path, ["a/B.class"]))
    assert sorted(problems(staged)) == [
        f"{ARTIFACT}-{VERSION}.jar lacks {entry}" for entry in sorted(check_maven_repo.MAIN_JAR_ENTRIES)
    ]


def test_an_extra_file_is_refused(staged):
    (staged / f"{ARTIFACT}-{VERSION}-tests-javadoc.jar").write_bytes(b"")
    assert problems(staged) == [f"{ARTIFACT}-{VERSION}-tests-javadoc.jar is not part of the release"]


@pytest.mark.skipif(not shutil.which("gpg"), reason="no gpg")
def test_signatures_made_by_sign_sh_verify_and_a_missing_one_is_named(staged, tmp_path, monkeypatch):
    home = tmp_path / "gnupg"
    home.mkdir(mode=0o700)
    monkeypatch.setenv("GNUPGHOME", str(home))  # a keyring of the test's own, for gpg here and in sign.sh
    monkeypatch.delenv("GPG_KEY_ID", raising=False)
    env = dict(os.environ)
    subprocess.run(
        [
            "gpg",
            "--batch",
            "--passphrase",
            "",
            "--quick-gen-key",
            "release-test <test@example.org>",
            "ed25519",
            "sign",
            "never",
        ],
        env=env,
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert problems(staged, signed=True) != []  # nothing signed yet
    signing = subprocess.run(
        [str(RELEASE / "sign.sh"), str(staged)], env=env, capture_output=True, text=True, timeout=120, check=True
    )
    assert signing.stdout.splitlines()[-1] == "signed"
    assert problems(staged, signed=True) == []
    Path(staged / f"{ARTIFACT}-{VERSION}.pom.asc").unlink()
    assert problems(staged, signed=True) == [f"{ARTIFACT}-{VERSION}.pom.asc is missing"]


def test_without_a_key_signing_is_skipped_saying_so(staged, tmp_path):
    home = tmp_path / "empty-gnupg"
    home.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k != "GPG_KEY_ID"}
    done = subprocess.run(
        [str(RELEASE / "sign.sh"), str(staged)],
        env=dict(env, GNUPGHOME=str(home)),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "PGP signing skipped" in done.stdout
    assert not list(staged.glob("*.asc"))
