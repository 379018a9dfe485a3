# SPDX-License-Identifier: Apache-2.0
"""A Kinesis for the end-to-end tests: kinesis-mock started from localstack/ (the default), a
LocalStack container (KINESIS_BACKEND=localstack), or any endpoint named by KINESIS_ENDPOINT
(real AWS, a LocalStack already running).

Used by the fixtures in conftest.py; kept free of pytest so it can be driven by hand too.
"""

import json
import os
import shutil
import socket
import subprocess
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import boto3
from botocore.config import Config

from localstack_container import localstack_kinesis

REPO = Path(__file__).resolve().parents[2]
LOCALSTACK = REPO / "localstack"

# Fake credentials for kinesis-mock, which requires a well-formed SigV4 Authorization header
# but never checks the signature. The key id is AWS's documented example (secret scanners
# know it) and not a 12-digit number, so every request lands in account 000000000000.
FAKE_ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
FAKE_SECRET_KEY = "fake-secret"

MAX_RECORDS_PER_CALL = 500
MAX_BYTES_PER_CALL = 5 * 1024 * 1024


def free_ports(n=2):
    """n distinct free loopback ports (the sockets are held together so none repeats)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


TRUST_STORE_PASSWORD = "kinesis-local"


class TrustStore:
    """A PKCS12 trust store holding the local Kinesis' certificate, for JVMs that talk https to it."""

    def __init__(self, path, password=TRUST_STORE_PASSWORD):
        self.path = str(path)
        self.password = password

    def java_options(self):
        """JVM options that make the standard trust manager accept the local Kinesis."""
        return [
            f"-Djavax.net.ssl.trustStore={self.path}",
            "-Djavax.net.ssl.trustStoreType=PKCS12",
            f"-Djavax.net.ssl.trustStorePassword={self.password}",
        ]


def make_tls(directory):
    """A self-signed certificate for 127.0.0.1 and localhost, as kinesis-mock's server.json, and a
    PKCS12 trust store of it made with keytool. Returns (server_json_path, TrustStore), or
    (None, None) without openssl or keytool.

    kinesis-mock's bundled certificate names no host (CN=Unknown, no subjectAltName), so a
    client that checks host names, as the AWS SDK always does, refuses it even when trusted."""
    if not (shutil.which("openssl") and shutil.which("keytool")):
        return None, None
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    key, cert = directory / "server.key", directory / "server.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "30",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    server_json = directory / "server.json"
    server_json.write_text(json.dumps({"server": {"cert": cert.read_text(), "key": key.read_text()}}))
    trust = directory / "truststore.p12"
    subprocess.run(
        [
            "keytool",
            "-importcert",
            "-noprompt",
            "-alias",
            "kinesis-local",
            "-file",
            str(cert),
            "-keystore",
            str(trust),
            "-storetype",
            "PKCS12",
            "-storepass",
            TRUST_STORE_PASSWORD,
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return server_json, TrustStore(trust)


def start_local(run_dir, plain_port, tls_port, region="us-east-1", timeout=120, cert_path=None):
    """Starts kinesis-mock via localstack/start-kinesis.sh; returns its pid."""
    env = dict(
        os.environ,
        KINESIS_LOCAL_RUN_DIR=str(run_dir),
        KINESIS_LOCAL_PLAIN_PORT=str(plain_port),
        KINESIS_LOCAL_TLS_PORT=str(tls_port),
        AWS_REGION=region,
    )
    if cert_path:
        env["KINESIS_LOCAL_CERT_PATH"] = str(cert_path)
    subprocess.run([str(LOCALSTACK / "start-kinesis.sh")], env=env, check=True, timeout=timeout)
    return int((Path(run_dir) / "kinesis.pid").read_text())


def stop_local(run_dir, timeout=60):
    env = dict(os.environ, KINESIS_LOCAL_RUN_DIR=str(run_dir))
    subprocess.run([str(LOCALSTACK / "stop-kinesis.sh")], env=env, check=True, timeout=timeout)


class Kinesis:
    """A Kinesis endpoint with a boto3 client and the few helpers the tests need."""

    def __init__(self, endpoint, region, credentials=None, tls_endpoint=None, trust_store=None):
        self.endpoint = endpoint  # plain HTTP for kinesis-mock, https for AWS
        self.tls_endpoint = tls_endpoint  # kinesis-mock's https + HTTP/2 port (EFO); None otherwise
        self.trust_store = trust_store  # TrustStore a JVM needs for tls_endpoint; None otherwise
        self.region = region
        self.created = []  # streams create_stream made, for delete_created_streams
        self.client = boto3.client(
            "kinesis",
            endpoint_url=endpoint,
            region_name=region,
            # A put of records up to 10 MiB can take the local Kinesis long on a loaded machine: a
            # put retried after a timeout would store its records twice.
            config=Config(retries={"max_attempts": 10, "mode": "standard"}, connect_timeout=5, read_timeout=180),
            **(credentials or {}),
        )

    def close(self):
        # Open keep-alive connections would hold up kinesis-mock's graceful shutdown.
        self.client.close()

    def create_stream(self, name=None, shards=2, timeout=300):
        """Creates a provisioned stream and waits until it is ACTIVE; returns its name."""
        name = name or f"test-{uuid.uuid4().hex[:12]}"
        self.client.create_stream(StreamName=name, ShardCount=shards)
        self.created.append(name)
        self.wait_active(name, timeout)
        return name

    def wait_active(self, name, timeout=300):
        deadline = time.monotonic() + timeout
        while True:
            summary = self.client.describe_stream_summary(StreamName=name)["StreamDescriptionSummary"]
            if summary["StreamStatus"] == "ACTIVE":
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"stream {name} still {summary['StreamStatus']} after {timeout}s")
            time.sleep(0.1)

    def delete_created_streams(self, keep=()):
        """Deletes the streams create_stream made, but those in `keep`: a session's shards stay
        under the account's shard limit however many tests create streams."""
        for name in [n for n in self.created if n not in keep]:
            for _ in range(50):  # a stream still resharding cannot be deleted yet
                try:
                    self.delete_stream(name)
                    break
                except self.client.exceptions.ResourceInUseException:
                    time.sleep(0.2)

    def delete_stream(self, name):
        if name in self.created:
            self.created.remove(name)
        try:
            self.client.delete_stream(StreamName=name, EnforceConsumerDeletion=True)
        except self.client.exceptions.ResourceNotFoundException:
            pass

    def put_records(self, stream, records, max_attempts=10):
        """Writes (partition_key, bytes) pairs with PutRecords, retrying failed entries.

        Returns [(shardId, sequenceNumber)] in input order."""
        records = list(records)
        results = [None] * len(records)
        for batch in _batches(records):
            pending = batch  # indexes into records
            for attempt in range(max_attempts):
                resp = self.client.put_records(
                    StreamName=stream, Records=[{"PartitionKey": records[i][0], "Data": records[i][1]} for i in pending]
                )
                failed = []
                for i, entry in zip(pending, resp["Records"]):
                    if "SequenceNumber" in entry:
                        results[i] = (entry["ShardId"], entry["SequenceNumber"])
                    else:
                        failed.append(i)
                if not failed:
                    break
                pending = failed
                time.sleep(min(0.1 * 2**attempt, 2.0))  # throttled: back off
            else:
                raise RuntimeError(
                    f"{len(pending)} records to {stream} still failing after {max_attempts} attempts: "
                    f"{resp['Records'][0].get('ErrorCode')}"
                )
        return results


def _batches(records):
    """Index lists within PutRecords' limits (500 records, 5 MiB of keys + data a call)."""
    batch, size = [], 0
    for i, (key, data) in enumerate(records):
        n = len(key.encode()) + len(data)
        if batch and (len(batch) == MAX_RECORDS_PER_CALL or size + n > MAX_BYTES_PER_CALL):
            yield batch
            batch, size = [], 0
        batch.append(i)
        size += n
    if batch:
        yield batch


BACKENDS = ("kinesis-mock", "localstack")


def chosen_backend():
    """KINESIS_BACKEND: kinesis-mock (the default) or localstack (docs/testing-backends.md)."""
    backend = os.environ.get("KINESIS_BACKEND") or "kinesis-mock"
    if backend not in BACKENDS:
        raise ValueError(
            f"KINESIS_BACKEND={backend!r} is not a Kinesis backend: use kinesis-mock (the default) "
            "or localstack; KINESIS_ENDPOINT names any other endpoint"
        )
    return backend


@contextmanager
def fake_credentials(region):
    """Fake AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY and AWS_REGION in os.environ for the
    duration (restored after), so that anything using the default AWS credential chain - the
    Spark connector's JVM included, if started afterwards - reaches a local Kinesis."""
    saved = {
        k: os.environ.get(k)
        for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION")
    }
    os.environ.pop("AWS_SESSION_TOKEN", None)
    os.environ.update(
        AWS_ACCESS_KEY_ID=FAKE_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY=FAKE_SECRET_KEY,
        AWS_REGION=region,
        AWS_DEFAULT_REGION=region,
    )
    try:
        yield {"aws_access_key_id": FAKE_ACCESS_KEY, "aws_secret_access_key": FAKE_SECRET_KEY}
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def kinesis_for_tests(tmp_dir):
    """Yields a Kinesis: the one named by KINESIS_ENDPOINT; else, by KINESIS_BACKEND, a
    kinesis-mock started on free loopback ports with its run files under tmp_dir (the
    default), or a LocalStack container (localstack_container.py); stopped on exit.

    With a local Kinesis, fake credentials and AWS_REGION are in os.environ while it runs
    (see fake_credentials).

    :raises localstack_container.BackendUnavailable: the backend cannot run here (no Docker)."""
    external = os.environ.get("KINESIS_ENDPOINT")
    if external:
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        kinesis = Kinesis(external, region)
        try:
            yield kinesis
        finally:
            kinesis.close()
        return

    region = os.environ.get("AWS_REGION", "us-east-1")
    if chosen_backend() == "localstack":
        # LocalStack's https certificate names its own domain, not 127.0.0.1: no tls_endpoint.
        with localstack_kinesis(region) as endpoint, fake_credentials(region) as credentials:
            kinesis = Kinesis(endpoint, region, credentials=credentials)
            try:
                yield kinesis
            finally:
                kinesis.close()
        return

    run_dir = Path(tmp_dir) / "kinesis-mock"
    try:
        cert_path, trust_store = make_tls(Path(tmp_dir) / "tls")
        # Free ports can be taken between choosing and binding them: try a few times.
        for attempt in range(3):
            plain_port, tls_port = free_ports(2)
            try:
                start_local(run_dir, plain_port, tls_port, region, cert_path=cert_path)
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
        with fake_credentials(region) as credentials:
            kinesis = Kinesis(
                f"http://127.0.0.1:{plain_port}",
                region,
                credentials=credentials,
                tls_endpoint=f"https://127.0.0.1:{tls_port}",
                trust_store=trust_store,
            )
            try:
                yield kinesis
            finally:
                kinesis.close()
    finally:
        stop_local(run_dir)
