# SPDX-License-Identifier: Apache-2.0
"""End to end, Kinesis from SQL: the read_kinesis table-valued function (streaming with STREAM,
batch without), its argument errors, and the `USING kinesis` forms (docs/sql.md says which
form works on which Spark line)."""

import pyspark
import pytest
from pyspark.errors import PySparkException

from streaming import make_records, run_available_now

SPARK = tuple(int(part) for part in pyspark.__version__.split(".")[:2])
# STREAM before a table function parses from Spark 4.2 on (docs/sql.md: which form works where).
STREAM_KEYWORD = SPARK >= (4, 2)


def arguments(kinesis, stream, **more):
    """read_kinesis's named arguments (Databricks' names) for a read of the whole stream."""
    values = {
        "streamName": stream,
        "region": kinesis.region,
        "endpoint": kinesis.endpoint,
        "initialPosition": "trim_horizon",
        # Keep triggers short: the local Kinesis is slow and tests read little.
        "maxFetchDuration": "2s",
        "minFetchPeriod": "200ms",
        **more,
    }
    return ", ".join(f"{name} => '{value}'" for name, value in values.items())


def payloads(records):
    return sorted(data.decode() for _, data in records)


@pytest.mark.skipif(not STREAM_KEYWORD, reason="Spark's parser has STREAM for table functions from 4.2 on")
def test_select_from_stream_read_kinesis_is_a_streaming_query_that_reads_every_record(spark, kinesis, tmp_path):
    stream = kinesis.create_stream(shards=2)
    records = make_records(40)
    kinesis.put_records(stream, records)

    df = spark.sql(
        f"SELECT CAST(data AS STRING) AS payload, partitionKey FROM STREAM read_kinesis({arguments(kinesis, stream)})"
    )
    assert df.isStreaming
    run_available_now(df, tmp_path / "out", tmp_path / "checkpoint")

    rows = spark.read.parquet(str(tmp_path / "out")).collect()
    assert sorted(row.payload for row in rows) == payloads(records)


@pytest.mark.skipif(STREAM_KEYWORD, reason="from Spark 4.2 on, STREAM read_kinesis(...) is a streaming read")
def test_before_spark_4_2_from_stream_read_kinesis_fails_to_parse_rather_than_reading_a_batch(spark, kinesis):
    stream = kinesis.create_stream(shards=1)
    with pytest.raises(PySparkException, match="PARSE_SYNTAX_ERROR"):
        spark.sql(f"SELECT * FROM STREAM read_kinesis({arguments(kinesis, stream)})")


def test_select_from_read_kinesis_without_stream_reads_the_records_as_a_batch(spark, kinesis):
    stream = kinesis.create_stream(shards=2)
    records = make_records(25)
    kinesis.put_records(stream, records)

    df = spark.sql(f"SELECT CAST(data AS STRING) AS payload, stream FROM read_kinesis({arguments(kinesis, stream)})")
    assert not df.isStreaming
    rows = df.collect()
    assert sorted(row.payload for row in rows) == payloads(records)
    assert {row.stream for row in rows} == {stream}


def test_read_kinesis_takes_the_option_names_of_other_connectors_too(spark, kinesis):
    stream = kinesis.create_stream(shards=1)
    records = make_records(5)
    kinesis.put_records(stream, records)

    rows = spark.sql(
        f"SELECT CAST(data AS STRING) AS payload FROM read_kinesis(streamName => '{stream}', "
        f"endpointUrl => '{kinesis.endpoint}', region => '{kinesis.region}', startingPosition => 'TRIM_HORIZON')"
    ).collect()
    assert sorted(row.payload for row in rows) == payloads(records)


@pytest.mark.parametrize(
    "call, message",
    [
        ("read_kinesis(streamName => 's', noSuchOption => 'x')", "KINESIS_UNKNOWN_OPTION.*noSuchOption"),
        ("read_kinesis(streamName => 's', initialPosition => 'yesterday')", "yesterday.*initialPosition"),
        ("read_kinesis('s')", "KINESIS_SQL_ARGUMENT_INVALID.*named arguments only; argument 1"),
        ("read_kinesis(streamName => 's', streamname => 't')", "argument streamName is given 2 times"),
        ("read_kinesis(streamName => 's', region => NULL)", "argument region is NULL"),
        ("read_kinesis(streamName => 's', region => uuid())", "argument region must be a constant"),
    ],
)
def test_a_bad_argument_fails_the_query_naming_it(spark, call, message):
    with pytest.raises(PySparkException, match=message):
        spark.sql(f"SELECT * FROM {call}").collect()


def test_a_temporary_view_using_kinesis_reads_the_stream(spark, kinesis):
    stream = kinesis.create_stream(shards=1)
    records = make_records(10)
    kinesis.put_records(stream, records)
    options = arguments(kinesis, stream).replace(" => ", " ")

    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW kinesis_view USING kinesis OPTIONS ({options})")
    try:
        rows = spark.sql("SELECT CAST(data AS STRING) AS payload FROM kinesis_view").collect()
    finally:
        spark.sql("DROP VIEW IF EXISTS kinesis_view")
    assert sorted(row.payload for row in rows) == payloads(records)


@pytest.mark.skipif(SPARK < (4, 0), reason="Spark 3.5 creates the table without asking the connector (next test)")
def test_create_table_using_kinesis_is_refused_saying_what_to_write_instead(spark):
    with pytest.raises(PySparkException, match="KINESIS_CATALOG_TABLE_UNSUPPORTED.*read_kinesis"):
        spark.sql("CREATE TABLE kinesis_table USING kinesis OPTIONS (streamName 'orders', region 'us-east-1')")
    assert not spark.catalog.tableExists("kinesis_table")


@pytest.mark.skipif(SPARK >= (4, 0), reason="Spark 4 asks the connector at CREATE TABLE, which refuses (test above)")
def test_on_spark_3_5_a_table_using_kinesis_is_created_but_every_use_fails(spark):
    spark.sql("CREATE TABLE kinesis_table_35 USING kinesis OPTIONS (streamName 'orders', region 'us-east-1')")
    try:
        # Spark 3.5 raises it from its table cache, wrapped: not as a PySparkException.
        with pytest.raises(Exception, match="kinesis is not a valid Spark SQL Data Source"):
            spark.sql("SELECT * FROM kinesis_table_35").collect()
    finally:
        spark.sql("DROP TABLE IF EXISTS kinesis_table_35")
