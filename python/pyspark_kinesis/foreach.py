# SPDX-License-Identifier: Apache-2.0
"""Writing a streaming DataFrame to Kinesis through Spark's foreach sink, with the connector's
JVM writer (``io.github.sparkkinesis.sink.KinesisForeachWriter``).

This is the way to Kinesis for a real-time query (``trigger(realTime=...)``): Spark allows a
real-time query only its allow-listed sinks (foreach, console, memory, Kafka), so
``format("kinesis")`` is refused there while Spark's check is on, and a Python foreach writer
would see a task's rows only when the task ends. The connector's writer runs in the JVM and
sends each row as it comes::

    from pyspark_kinesis import KinesisSinkOptions, foreach_kinesis

    out = KinesisSinkOptions().stream_name("clean-events").region("us-east-1")
    query = (foreach_kinesis(events.select("partitionKey", "data"), out)
             .outputMode("update")
             .option("checkpointLocation", "/checkpoints/clean-events")
             .trigger(realTime="5 seconds")
             .start())

It needs a classic SparkSession (py4j); Spark Connect's ``foreach`` takes Python writers only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Dict, Union

from pyspark_kinesis._jvm import jvm_class
from pyspark_kinesis.options import KinesisSinkOptions

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.streaming.readwriter import DataStreamWriter

__all__ = ["foreach_kinesis"]

JVM_CLASS = "io.github.sparkkinesis.sink.KinesisForeachWriter"


def _option_map(options: Union[KinesisSinkOptions, Mapping[str, str]]) -> Dict[str, str]:
    if isinstance(options, KinesisSinkOptions):
        return options.to_dict()
    if not isinstance(options, Mapping):
        raise TypeError(
            f"options must be a KinesisSinkOptions or a mapping of option names to str values, "
            f"got {type(options).__name__}"
        )
    for key, value in options.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise TypeError(f"options must map str option names to str values, got {key!r}: {type(value).__name__}")
    return dict(options)


def foreach_kinesis(df: DataFrame, options: Union[KinesisSinkOptions, Mapping[str, str]]) -> DataStreamWriter:
    """Return ``df.writeStream`` with its sink set to the connector's JVM foreach writer.

    Chain the rest as for any query (``outputMode``, ``trigger``, ``option("checkpointLocation",
    ...)``, ``queryName``) and call ``start()``. ``df`` has the columns ``format("kinesis")``
    writes: ``data`` (binary or string), ``partitionKey``, optionally ``explicitHashKey``, and
    ``stream`` when no stream name is set; other columns are ignored. ``options`` are the sink's
    (:class:`KinesisSinkOptions` or a dict); ``maxPutLinger`` defaults to 5 ms here, not 50 ms.

    Each task batches, retries and keeps each partition key's order as the sink does; a batch
    commits only once Kinesis stored its rows (at least once: a batch that runs again sends its
    rows again). Options and columns are checked here, in the JVM: a bad one raises the
    connector's error (``IllegalArgumentException`` with ``[KINESIS_...]``) before the query starts.

    :raises TypeError: ``options`` is neither a :class:`KinesisSinkOptions` nor a ``str`` mapping.
    :raises RuntimeError: ``df`` belongs to a Spark Connect session (no py4j), or the connector
        jar is not on the driver's classpath (the message says how to add it).
    """
    option_map = _option_map(options)
    jdf: Any = getattr(df, "_jdf", None)
    if jdf is None:
        raise RuntimeError(
            "foreach_kinesis hands Spark the connector's JVM ForeachWriter through py4j, which needs "
            f"a classic SparkSession; got a {type(df).__module__}.{type(df).__name__}. Spark Connect's "
            'foreach takes Python writers only: under Connect write with format("kinesis") instead '
            '(docs/real-time.md, "The sink", says how in real-time mode).'
        )
    spark = df.sparkSession
    writer_class = jvm_class(spark, JVM_CLASS)  # fails, saying what to do, without the jar
    jvm: Any = spark._jvm
    java_options = jvm.java.util.HashMap()
    for key, value in option_map.items():
        java_options.put(key, value)
    jwriter = writer_class(java_options).checkColumns(jdf.schema())
    stream_writer = df.writeStream
    # The JVM DataStreamWriter the Python one wraps: foreach sets its sink in place.
    stream_writer._jwrite.foreach(jwriter)
    return stream_writer
