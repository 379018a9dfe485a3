# SPDX-License-Identifier: Apache-2.0
"""End to end: every way a query authenticates, against servers that check.

kinesis-mock never verifies signatures, so these tests read from moto's Kinesis with IAM
authentication on (tests/support/moto_local.py says what moto verifies): a query only reads when
the credentials it signs with are ones moto issued and their policies allow the calls. STS
(role assumption) is moto's too. TLS is tested against kinesis-mock's HTTPS port.
"""

import datetime
import ipaddress
import json
import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest

from kinesis_local import FAKE_ACCESS_KEY, FAKE_SECRET_KEY, Kinesis, free_ports, start_local, stop_local
from moto_local import READ_ACTIONS
from streaming import make_records
from submit import APPS, env_without_aws_credentials, read_json_rows, spark_submit
from waiting import wait_for

SESSION_SECONDS_PROPERTY = "sparkkinesis.test.assumeRoleSessionSeconds"
JSON_PROTOCOL = "-Daws.cborEnabled=false"  # moto's Kinesis speaks JSON only


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def masked(access_key_id):
    """How the connector shows an access key id: type prefix and last 4 characters."""
    return f"{access_key_id[:4]}…{access_key_id[-4:]}"


def moto_reader(spark, moto, stream, **options):
    reader = (
        spark.readStream.format("kinesis")
        .option("streamName", stream)
        .option("endpoint", moto.endpoint)
        .option("region", moto.region)
        .option("initialPosition", "trim_horizon")
        .option("maxFetchDuration", "1s")
        .option("minFetchPeriod", "200ms")
    )
    for key, value in options.items():
        reader = reader.option(key, value)
    return reader.load()


def query_failure(df, timeout=120):
    """Runs df once (Trigger.AvailableNow, memory sink) and returns the message it failed with."""
    query = (
        df.writeStream.format("memory").queryName(unique("fail").replace("-", "_")).trigger(availableNow=True).start()
    )
    try:
        query.awaitTermination(timeout)
    except Exception as e:  # StreamingQueryException, with the connector's error in its message
        return str(e)
    finally:
        query.stop()
    pytest.fail("the query was expected to fail but did not")


def moto_stream(moto, records=20):
    stream = moto.kinesis.create_stream(name=unique("auth"), shards=1)
    moto.kinesis.put_records(stream, make_records(records))
    return stream


# ---- roles --------------------------------------------------------------------------------


def test_role_is_assumed_with_external_id_and_session_name_and_renewed_before_expiry(spark, moto, json_protocol):
    # The base user may only assume the role; only the role may read. So every record read
    # proves the Kinesis calls were signed with the role's temporary credentials.
    base_key, base_secret, base_arn = moto.create_user(unique("base"), ["sts:AssumeRole"])
    external_id, session = unique("ext"), unique("nightly")
    role_arn = moto.create_role(unique("reader"), base_arn, READ_ACTIONS, external_id=external_id)
    stream = moto_stream(moto, 30)

    # Six-second sessions (test-only knob; real STS accepts 900 s at least): the provider
    # renews them from half their life on, so a query of some seconds sees several.
    jvm_system = spark.sparkContext._jvm.java.lang.System
    jvm_system.setProperty(SESSION_SECONDS_PROPERTY, "6")
    try:
        df = moto_reader(
            spark,
            moto,
            stream,
            awsAccessKey=base_key,
            awsSecretKey=base_secret,
            roleArn=role_arn,
            roleExternalId=external_id,
            roleSessionName=session,
            stsEndpoint=moto.endpoint,
        )
    finally:
        jvm_system.clearProperty(SESSION_SECONDS_PROPERTY)
    name = unique("role").replace("-", "_")
    query = df.writeStream.format("memory").queryName(name).trigger(processingTime="1 second").start()

    def rows():
        return spark.sql(f"SELECT count(*) FROM {name}").collect()[0][0]

    try:
        wait_for(lambda: rows() == 30, "the first 30 records", query)
        # Renewed in the background, before the first credentials expire.
        wait_for(lambda: len(moto.assumed_roles(role_arn)) >= 3, "three AssumeRole calls", query)
        moto.kinesis.put_records(stream, make_records(30))
        wait_for(lambda: rows() == 60, "the 30 records put after the renewals", query)
    finally:
        query.stop()

    calls = moto.assumed_roles(role_arn)
    assert len(calls) >= 3
    assert {c["session_name"] for c in calls} == {session}
    assert {c["external_id"] for c in calls} == {external_id}
    assert len({c["access_key_id"] for c in calls}) == len(calls), "each renewal brings new credentials"


def test_wrong_external_id_is_an_access_denial_naming_sts_assume_role(spark, moto, json_protocol):
    base_key, base_secret, base_arn = moto.create_user(unique("base"), ["sts:AssumeRole"])
    role_arn = moto.create_role(unique("reader"), base_arn, READ_ACTIONS, external_id="the-right-one")
    stream = moto_stream(moto, 1)

    message = query_failure(
        moto_reader(
            spark,
            moto,
            stream,
            awsAccessKey=base_key,
            awsSecretKey=base_secret,
            roleArn=role_arn,
            roleExternalId="a-wrong-one",
            stsEndpoint=moto.endpoint,
        )
    )

    assert "[KINESIS_ACCESS_DENIED]" in message
    assert f"STS AssumeRole on role {role_arn} with external id 'a-wrong-one'" in message
    assert "sts:AssumeRole" in message
    assert masked(base_key) in message
    assert base_key not in message and base_secret not in message
    assert moto.assumed_roles(role_arn) == [], "moto's trust policy check refused the external id"


# ---- keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize("wrong", ["secret key", "access key"])
def test_wrong_keys_are_an_authentication_error_naming_the_key_id_never_the_secret(spark, moto, json_protocol, wrong):
    key, secret, _ = moto.create_user(unique("reader"), READ_ACTIONS)
    if wrong == "secret key":
        key_used, secret_used, code = key, "wrong" + secret[5:], "SignatureDoesNotMatch"
    else:
        key_used, secret_used, code = "AKIANOSUCHKEY" + uuid.uuid4().hex[:7].upper(), secret, "InvalidClientTokenId"
    stream = moto_stream(moto, 1)

    message = query_failure(moto_reader(spark, moto, stream, awsAccessKey=key_used, awsSecretKey=secret_used))

    assert "[KINESIS_AUTHENTICATION_FAILED]" in message
    assert "Kinesis rejected the credentials of ListShards" in message
    assert code in message
    assert f"access key {masked(key_used)} from the options awsAccessKey/awsSecretKey" in message
    assert key_used not in message and secret_used not in message and secret not in message


@pytest.mark.parametrize(
    "allowed, denied",
    [
        ([], "ListShards"),
        (["kinesis:ListShards"], "GetShardIterator"),
        (["kinesis:ListShards", "kinesis:GetShardIterator"], "GetRecords"),
    ],
)
def test_a_missing_permission_names_the_api_call_and_the_iam_action(spark, moto, json_protocol, allowed, denied):
    key, secret, _ = moto.create_user(unique("partial"), allowed)
    stream = moto_stream(moto, 5)

    message = query_failure(moto_reader(spark, moto, stream, awsAccessKey=key, awsSecretKey=secret))

    assert "[KINESIS_ACCESS_DENIED]" in message
    assert f"Kinesis {denied} on " in message
    assert f"IAM permission kinesis:{denied}" in message
    assert masked(key) in message and key not in message and secret not in message


# ---- the default chain, in a JVM of its own ----------------------------------------------


def read_from_moto_in_own_jvm(moto, stream, tmp_path, env):
    output = tmp_path / "out"
    spark_submit(
        [
            "--driver-java-options",
            JSON_PROTOCOL,
            str(APPS / "read_stream_to_json.py"),
            stream,
            moto.endpoint,
            moto.region,
            str(output),
        ],
        tmp_path,
        env=env,
    )
    return read_json_rows(output)


def test_default_chain_takes_keys_from_environment_variables(moto, tmp_path):
    key, secret, _ = moto.create_user(unique("env"), READ_ACTIONS)
    stream = moto_stream(moto, 25)

    rows = read_from_moto_in_own_jvm(
        moto,
        stream,
        tmp_path,
        env_without_aws_credentials(
            AWS_ACCESS_KEY_ID=key,
            AWS_SECRET_ACCESS_KEY=secret,
            # Nothing else for the chain to find.
            AWS_SHARED_CREDENTIALS_FILE=str(tmp_path / "none"),
            AWS_CONFIG_FILE=str(tmp_path / "none"),
        ),
    )

    assert len(rows) == 25


def test_default_chain_takes_the_profile_named_by_aws_profile(moto, tmp_path):
    key, secret, _ = moto.create_user(unique("profile"), READ_ACTIONS)
    stream = moto_stream(moto, 25)
    credentials = tmp_path / "credentials"
    # The default profile holds keys moto never issued: only the named profile can read.
    credentials.write_text(
        f"[default]\naws_access_key_id = AKIAWRONGDEFAULT0000\naws_secret_access_key = x\n\n"
        f"[kinesis-reader]\naws_access_key_id = {key}\naws_secret_access_key = {secret}\n"
    )

    rows = read_from_moto_in_own_jvm(
        moto,
        stream,
        tmp_path,
        env_without_aws_credentials(
            AWS_PROFILE="kinesis-reader",
            AWS_SHARED_CREDENTIALS_FILE=str(credentials),
            AWS_CONFIG_FILE=str(tmp_path / "none"),
        ),
    )

    assert len(rows) == 25


# ---- TLS ----------------------------------------------------------------------------------


def self_signed_certificate(directory):
    """A certificate for 127.0.0.1 and localhost, as kinesis-mock's JSON and as PEM."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    from cryptography.x509.oid import NameOID

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kinesis-local test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    server_json = Path(directory) / "server.json"
    server_json.write_text(json.dumps({"server": {"key": key_pem, "cert": cert_pem}}))
    pem = Path(directory) / "cert.pem"
    pem.write_text(cert_pem)
    return server_json, pem


def keytool():
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home) / "bin" / "keytool" if java_home else None
    return str(candidate) if candidate and candidate.exists() else shutil.which("keytool")


def test_https_is_verified_and_a_self_signed_certificate_is_trusted_through_the_jvm_trust_store(
    spark, kinesis, tmp_path
):
    """With its certificate unknown to the JVM, an https endpoint fails with a certificate
    error; with the certificate in a trust store named by -Djavax.net.ssl.trustStore, reads
    work. There is no switch that skips the check."""
    if os.environ.get("KINESIS_ENDPOINT"):
        pytest.skip("needs kinesis-mock, started here with a certificate of its own")
    assert keytool(), "keytool (from the JDK) is needed"
    server_json, pem = self_signed_certificate(tmp_path)
    truststore = tmp_path / "truststore.p12"
    subprocess.run(
        [
            keytool(),
            "-importcert",
            "-noprompt",
            "-alias",
            "kinesis-local",
            "-file",
            str(pem),
            "-keystore",
            str(truststore),
            "-storetype",
            "PKCS12",
            "-storepass",
            "changeit",
        ],
        check=True,
        capture_output=True,
    )

    run_dir = tmp_path / "kinesis-tls"
    for attempt in range(3):  # a free port can be taken before kinesis-mock binds it
        plain_port, tls_port = free_ports(2)
        try:
            start_local(run_dir, plain_port, tls_port, kinesis.region, cert_path=server_json)
            break
        except subprocess.CalledProcessError:
            if attempt == 2:
                raise
    local = Kinesis(
        f"http://127.0.0.1:{plain_port}",
        kinesis.region,
        credentials={"aws_access_key_id": FAKE_ACCESS_KEY, "aws_secret_access_key": FAKE_SECRET_KEY},
    )
    try:
        stream = local.create_stream(shards=1)
        records = make_records(20)
        local.put_records(stream, records)
        https = f"https://127.0.0.1:{tls_port}"

        # The shared session's JVM trusts only the JDK's CAs.
        df = (
            spark.readStream.format("kinesis")
            .option("streamName", stream)
            .option("endpoint", https)
            .option("region", kinesis.region)
            .option("initialPosition", "trim_horizon")
            .option("maxFetchDuration", "1s")
            .load()
        )
        message = query_failure(df)
        assert "[KINESIS_TLS_UNTRUSTED]" in message
        assert https in message
        assert "unable to find valid certification path" in message
        assert "javax.net.ssl.trustStore" in message

        output = tmp_path / "out"
        trust = (
            f"-Djavax.net.ssl.trustStore={truststore} -Djavax.net.ssl.trustStorePassword=changeit "
            "-Djavax.net.ssl.trustStoreType=PKCS12"
        )
        spark_submit(
            [
                "--driver-java-options",
                trust,
                str(APPS / "read_stream_to_json.py"),
                stream,
                https,
                kinesis.region,
                str(output),
            ],
            tmp_path,
        )
        assert sorted(r["partitionKey"] for r in read_json_rows(output)) == sorted(k for k, _ in records)
    finally:
        local.close()
        stop_local(run_dir)


# ---- region and endpoint ------------------------------------------------------------------


@pytest.mark.parametrize(
    "option, value, expected",
    [
        ("region", "us-nowhere-1", "an AWS region such as us-east-1"),
        ("region", "us-esat-1", "did you mean us-east-1?"),
        ("endpoint", "kinesis.us-east-1.amazonaws.com", "a URL such as https://"),
        ("stsEndpoint", "sts/amazonaws", "a URL such as https://"),
    ],
)
def test_a_region_that_does_not_exist_or_an_endpoint_that_is_not_a_url_fails_when_the_dataframe_is_defined(
    spark, option, value, expected
):
    from pyspark.errors import IllegalArgumentException

    options = {"streamName": "s", "region": "us-east-1", option: value}
    if option == "stsEndpoint":
        options["roleArn"] = "arn:aws:iam::123456789012:role/reader"
    with pytest.raises(IllegalArgumentException) as failure:
        spark.readStream.format("kinesis").options(**options).load()
    message = str(failure.value)
    assert "[KINESIS_INVALID_OPTION_VALUE]" in message
    assert f"'{value}'" in message and f"'{option}'" in message and expected in message
