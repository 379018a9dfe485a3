# SPDX-License-Identifier: Apache-2.0
"""AWS's own Glue Schema Registry serializer (the Java library that Kinesis producers and the
KPL call), as a producer for the end-to-end tests. Maven resolves its class path once (the
`pom.xml` beside this file, into `target/aws-gsr-serde/`), and `tests/apps/GsrSerdeEncode.java`
(and `GsrSerdeProtobuf.java` for Protobuf messages) runs on it with Java's single-file launch:
payloads in, Glue Schema Registry records out."""

import base64
import os
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
APP = REPO / "tests" / "apps" / "GsrSerdeEncode.java"
PROTOBUF_APP = REPO / "tests" / "apps" / "GsrSerdeProtobuf.java"
CLASSPATH = REPO / "target" / "aws-gsr-serde" / "classpath.txt"


def classpath():
    """The serializer's class path, resolved by Maven the first time."""
    if not CLASSPATH.exists():
        CLASSPATH.parent.mkdir(parents=True, exist_ok=True)
        resolved = subprocess.run(
            ["mvn", "-B", "-q", "-f", str(HERE / "pom.xml"), "dependency:build-classpath"]
            + [f"-Dmdep.outputFile={CLASSPATH}"],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert resolved.returncode == 0, f"Maven could not resolve AWS's serializer:\n{resolved.stdout[-3000:]}"
    return CLASSPATH.read_text().strip()


class AwsSerializer:
    """Encodes payloads as AWS's serializer does for one registry on one endpoint, registering
    each schema (and each new version of it) as its auto-registration does."""

    def __init__(self, endpoint, region, registry, credentials):
        self.endpoint, self.region, self.registry = endpoint, region, registry
        self.credentials = credentials  # boto3's keyword names: aws_access_key_id, aws_secret_access_key

    def encode(self, payloads, schema_name, data_format, definition, compression="NONE"):
        """The records the serializer makes of `payloads` (bytes each) under schema `schema_name`
        with `definition` (text) in `data_format` (AVRO or JSON); compression NONE or ZLIB."""
        with tempfile.NamedTemporaryFile("w", suffix=".schema") as schema_file:
            schema_file.write(definition)
            schema_file.flush()
            args = [schema_name, data_format, compression, schema_file.name]
            return self._run(APP, args, payloads)

    def encode_protobuf(self, messages, schema_name, file_descriptor, message_name, compression="NONE"):
        """The records the serializer makes of `messages` (serialized, bytes each) of message
        `message_name` of `file_descriptor` (a serialized FileDescriptorProto without imports),
        registering under `schema_name` the schema it derives from the descriptor."""
        with tempfile.NamedTemporaryFile("wb", suffix=".desc") as descriptor_file:
            descriptor_file.write(file_descriptor)
            descriptor_file.flush()
            args = [schema_name, descriptor_file.name, message_name, compression]
            return self._run(PROTOBUF_APP, args, messages)

    def _run(self, app, args, payloads):
        env = {
            **os.environ,
            "AWS_ACCESS_KEY_ID": self.credentials["aws_access_key_id"],
            "AWS_SECRET_ACCESS_KEY": self.credentials["aws_secret_access_key"],
        }
        done = subprocess.run(
            ["java", "-cp", classpath(), str(app), self.endpoint, self.region, self.registry, *args],
            input="".join(base64.b64encode(p).decode() + "\n" for p in payloads),
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert done.returncode == 0, f"AWS's serializer failed:\n{done.stderr[-3000:]}"
        return [base64.b64decode(line) for line in done.stdout.split()]
