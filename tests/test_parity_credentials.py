# SPDX-License-Identifier: Apache-2.0
"""End to end: credentials from a named profile (`profile`), read again when the file changes,
and from a provider class (`awsCredentialsProvider` + `awsCredentialsProviderSecret`). kinesis-mock
accepts any key, so the fault proxy in front of it shows which access key id signed each request
(`signed_by`). The shared Spark JVM (local mode: driver and executors) is pointed at a
credentials file of the test's own by the AWS SDK's system property aws.sharedCredentialsFile."""

import os
import uuid

import pytest
from realtime import wait_for

from streaming import kinesis_reader, make_records, run_available_now

FIRST_KEY = "AKIAPROFILEFIRST0001"
ROTATED_KEY = "AKIAPROFILEROTATED02"


@pytest.fixture
def credentials_file(spark, tmp_path):
    """A credentials file (and an empty config file) for the Spark JVM, restored after the test."""
    system = spark.sparkContext._jvm.java.lang.System
    files = {"aws.sharedCredentialsFile": tmp_path / "credentials", "aws.configFile": tmp_path / "config"}
    files["aws.configFile"].write_text("")
    previous = {name: system.getProperty(name) for name in files}
    for name, path in files.items():
        system.setProperty(name, str(path))
    try:
        yield files["aws.sharedCredentialsFile"]
    finally:
        for name, value in previous.items():
            if value is None:
                system.clearProperty(name)
            else:
                system.setProperty(name, value)


def write_profile(path, profile, key_id, bump=0):
    path.write_text(f"[{profile}]\naws_access_key_id = {key_id}\naws_secret_access_key = secret-of-{key_id}\n")
    if bump:  # a later modification time than the first write's, whatever the file system's resolution
        stat = path.stat()
        os.utime(path, (stat.st_atime + bump, stat.st_mtime + bump))


def keys_of(fault_proxy, operation):
    return {key for (op, key), n in fault_proxy.signed_by.items() if op == operation and n}


def test_keys_rotated_in_the_profiles_file_are_used_without_a_restart(
    spark, kinesis, fault_proxy, credentials_file, tmp_path
):
    profile = f"rotating-{uuid.uuid4().hex[:8]}"  # a profile of its own: providers are kept per JVM
    write_profile(credentials_file, profile, FIRST_KEY)
    stream = kinesis.create_stream(shards=1)
    first, second = make_records(20, "first"), make_records(20, "second")
    kinesis.put_records(stream, first)
    query = (
        kinesis_reader(spark, kinesis, stream, endpoint=fault_proxy.endpoint, profile=profile)
        .writeStream.format("memory")
        .queryName(f"rotating_{uuid.uuid4().hex[:8]}")
        .option("checkpointLocation", str(tmp_path / "chk"))
        .start()
    )
    rows = lambda: spark.sql(f"select count(*) from {query.name}").first()[0]  # noqa: E731
    try:
        wait_for(lambda: rows() == 20, "the records put before the rotation", query)
        assert keys_of(fault_proxy, "GetRecords") == {FIRST_KEY}

        write_profile(credentials_file, profile, ROTATED_KEY, bump=5)
        wait_for(
            lambda: ROTATED_KEY in keys_of(fault_proxy, "GetRecords"), "a GetRecords signed with the new key", query
        )
        kinesis.put_records(stream, second)
        wait_for(lambda: rows() == 40, "the records put after the rotation", query)
    finally:
        query.stop()


def test_a_provider_class_is_built_with_its_secret_and_signs_every_call(
    spark, kinesis, fault_proxy, credentials_file, tmp_path
):
    """The AWS SDK's ProfileCredentialsProvider named as published, built by create(String) with
    the profile's name as awsCredentialsProviderSecret."""
    profile = f"provided-{uuid.uuid4().hex[:8]}"
    write_profile(credentials_file, profile, "AKIAPROVIDERCLASS003")
    stream = kinesis.create_stream(shards=1)
    records = make_records(20)
    kinesis.put_records(stream, records)
    df = kinesis_reader(
        spark,
        kinesis,
        stream,
        endpoint=fault_proxy.endpoint,
        awsCredentialsProvider="software.amazon.awssdk.auth.credentials.ProfileCredentialsProvider",
        awsCredentialsProviderSecret=profile,
    )
    run_available_now(df, tmp_path / "out", tmp_path / "chk")
    assert spark.read.parquet(str(tmp_path / "out")).count() == len(records)
    assert keys_of(fault_proxy, "GetRecords") == {"AKIAPROVIDERCLASS003"}


def test_a_provider_class_that_is_not_there_fails_at_load_naming_the_option(spark, kinesis, stream):
    with pytest.raises(Exception) as failure:
        kinesis_reader(spark, kinesis, stream, **{"kinesis.credentialProviderClass": "com.example.Missing"})
    message = str(failure.value)
    assert "KINESIS_INVALID_OPTION_VALUE" in message and "'kinesis.credentialProviderClass'" in message
    assert "class com.example.Missing was not found" in message
