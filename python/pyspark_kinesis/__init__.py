# SPDX-License-Identifier: Apache-2.0
"""Amazon Kinesis for PySpark Structured Streaming.

The package carries the connector jar and helps use it::

    from pyspark.sql import SparkSession
    import pyspark_kinesis
    from pyspark_kinesis import KinesisSinkOptions, KinesisSourceOptions

    spark = pyspark_kinesis.configure(SparkSession.builder.appName("orders")).getOrCreate()
    options = KinesisSourceOptions().stream_name("orders").region("us-east-1")
    df = options.apply(spark.readStream.format("kinesis")).load()

    sink = KinesisSinkOptions().stream_name("orders-copy").region("us-east-1")
    sink.apply(df.select("partitionKey", "data").writeStream.format("kinesis")).start()

A real-time query (``trigger(realTime=...)``) writes to Kinesis with :func:`foreach_kinesis`,
through the foreach sink Spark allows there::

    foreach_kinesis(df, sink).outputMode("update").trigger(realTime="5 seconds").start()

Enhanced fan-out consumers are managed with :class:`AWSKinesisConsumerManager`, or from a
shell with ``python -m pyspark_kinesis consumers list --stream orders``.
"""

from pyspark_kinesis._jar import JAR_ENV_VAR, SQL_EXTENSIONS, configure, jar_path
from pyspark_kinesis._jvm import jvm_class
from pyspark_kinesis._version import __version__
from pyspark_kinesis.consumers import (
    AWSKinesisConsumerManager,
    AWSKinesisConsumerManagerBuilder,
    KinesisConsumerArgumentError,
    KinesisConsumerError,
)
from pyspark_kinesis.foreach import foreach_kinesis
from pyspark_kinesis.options import (
    SINK_OPTION_NAMES,
    SOURCE_OPTION_NAMES,
    KinesisSinkOptions,
    KinesisSourceOptions,
)

__all__ = [
    "AWSKinesisConsumerManager",
    "AWSKinesisConsumerManagerBuilder",
    "KinesisConsumerArgumentError",
    "KinesisConsumerError",
    "JAR_ENV_VAR",
    "KinesisSinkOptions",
    "KinesisSourceOptions",
    "SINK_OPTION_NAMES",
    "SOURCE_OPTION_NAMES",
    "SQL_EXTENSIONS",
    "__version__",
    "configure",
    "foreach_kinesis",
    "jar_path",
    "jvm_class",
]
