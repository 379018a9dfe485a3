# SPDX-License-Identifier: Apache-2.0
"""The same streaming table defined in Python: a `format("kinesis")` read needs only the jar."""

from pyspark import pipelines as dp
from pyspark.sql import DataFrame, SparkSession

spark = SparkSession.active()


@dp.table
def orders_py() -> DataFrame:
    return (
        spark.readStream.format("kinesis")
        .option("streamName", "orders")
        .option("region", "us-east-1")
        .option("initialPosition", "trim_horizon")
        .load()
        .selectExpr("partitionKey", "CAST(data AS STRING) AS payload", "approximateArrivalTimestamp")
    )
