# SPDX-License-Identifier: Apache-2.0
"""Enhanced fan-out consumers: list, register and deregister them from Python.

With a classic SparkSession this wraps the JVM class
``io.github.sparkkinesis.AWSKinesisConsumerManager`` through py4j (the connector jar must be on
the driver's classpath; see :func:`pyspark_kinesis.configure`), so the calls are the very ones a
query makes. Under Spark Connect, or with no Spark session at all, there is no py4j: the same
calls are made from Python with boto3 (``_aws_consumers.py``), with the same options, results
and error conditions::

    from pyspark_kinesis import AWSKinesisConsumerManager

    manager = (AWSKinesisConsumerManager.newManager()
               .option("region", "us-east-1")
               .create())
    manager.listConsumers("orders").show()
    arn = manager.registerConsumer("orders", "sparkkinesis_etl")
    manager.deregisterConsumer("orders", "sparkkinesis_etl")

Consumer names are full names, as Kinesis lists them: no consumerNamePrefix is added.
Registered consumers are billed every hour, whether a query reads with them or not.

Every failure raises :class:`KinesisConsumerError` with the connector's ``[KINESIS_...]``
message and condition, the same with either backend; a bad option or consumer name raises its
subclass :class:`KinesisConsumerArgumentError` (also a ``ValueError``) before any call.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from pyspark.sql import DataFrame, Row, SparkSession

from pyspark_kinesis._aws_consumers import AwsConsumerCalls
from pyspark_kinesis._consumer_calls import ConsumerCalls
from pyspark_kinesis._consumer_rules import (
    KinesisConsumerArgumentError,
    KinesisConsumerError,
    check_name,
    check_options,
)

__all__ = [
    "AWSKinesisConsumerManager",
    "AWSKinesisConsumerManagerBuilder",
    "KinesisConsumerArgumentError",
    "KinesisConsumerError",
]


def _check_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


CONSUMER_SCHEMA = (
    "consumerName STRING NOT NULL, consumerARN STRING NOT NULL, "
    "consumerStatus STRING NOT NULL, consumerCreationTimestamp TIMESTAMP"
)
"""The columns of :meth:`AWSKinesisConsumerManager.listConsumers`, as the JVM's ConsumerSchema."""


def _is_session(spark: object) -> bool:
    if isinstance(spark, SparkSession):
        return True
    try:
        from pyspark.sql.connect.session import SparkSession as ConnectSession
    except ImportError:  # A pyspark without Connect's dependencies (pandas, grpc).
        return False
    return isinstance(spark, ConnectSession)


def _session(spark: Optional[Any]) -> Optional[Any]:
    """``spark``, else the active session (classic or Connect), else None (boto3 only)."""
    if spark is None:
        return SparkSession.getActiveSession()
    if not _is_session(spark):
        raise TypeError(f"spark must be a SparkSession, got {type(spark).__name__}")
    return spark


def _has_jvm(spark: Optional[Any]) -> bool:
    return spark is not None and getattr(spark, "_jvm", None) is not None


class AWSKinesisConsumerManagerBuilder:
    """Collects the options that say how to reach AWS, as the source takes them (region,
    endpoint, credentials: keys, a role, a profile or a provider class; the proxy), for
    :meth:`create`; names are matched case-insensitively, and an unknown one is refused naming
    the closest known option."""

    def __init__(self, spark: Optional[Any], options: Optional[Dict[str, str]] = None) -> None:
        self._spark = spark
        self._options: Dict[str, str] = dict(options or {})

    def option(self, key: str, value: str) -> AWSKinesisConsumerManagerBuilder:
        """Sets one option; returns a new builder."""
        _check_str(key, "key")
        _check_str(value, "value")
        options = {k: v for k, v in self._options.items() if k.lower() != key.lower()}
        options[key] = value
        return AWSKinesisConsumerManagerBuilder(self._spark, options)

    def options(self, **options: str) -> AWSKinesisConsumerManagerBuilder:
        """Sets several options; returns a new builder."""
        builder = self
        for key, value in options.items():
            builder = builder.option(key, value)
        return builder

    def create(self) -> AWSKinesisConsumerManager:
        """The manager: through py4j with a classic session, else through boto3.

        :raises KinesisConsumerArgumentError: an unknown option (naming the closest known one),
            or a bad value.
        """
        options = check_options(self._options)
        backend: ConsumerCalls
        if self._spark is not None and _has_jvm(self._spark):
            from pyspark_kinesis._jvm_consumers import JvmConsumerCalls

            backend = JvmConsumerCalls(self._spark, options)
        else:
            backend = AwsConsumerCalls(options)
        return AWSKinesisConsumerManager(backend, self._spark)

    def __repr__(self) -> str:
        from pyspark_kinesis.options import SECRET_OPTION_NAMES

        secret = {name.lower() for name in SECRET_OPTION_NAMES}
        shown = ", ".join(f"{k}={'<redacted>' if k.lower() in secret else v}" for k, v in sorted(self._options.items()))
        return f"AWSKinesisConsumerManagerBuilder({shown})"


class AWSKinesisConsumerManager:
    """Lists, registers and deregisters the enhanced fan-out consumers of a stream.

    Its calls go to one backend: the JVM's manager through py4j (classic session) or boto3
    (Spark Connect, or no session); build it with :meth:`newManager` (or :meth:`new_manager`)."""

    def __init__(self, backend: ConsumerCalls, spark: Optional[Any]) -> None:
        self._backend = backend
        self._spark = spark

    @staticmethod
    def newManager(spark: Optional[Any] = None) -> AWSKinesisConsumerManagerBuilder:
        """A builder; ``spark`` defaults to the active session (none is needed but for
        :meth:`listConsumers`)."""
        return AWSKinesisConsumerManagerBuilder(_session(spark))

    new_manager = newManager

    def listConsumers(self, streamName: str) -> DataFrame:
        """The stream's consumers as a DataFrame: consumerName, consumerARN, consumerStatus,
        consumerCreationTimestamp."""
        if self._spark is None:
            raise RuntimeError(
                "listConsumers returns a DataFrame and needs a SparkSession (classic or "
                "Spark Connect); without one, use listConsumersAsRows"
            )
        listed: DataFrame = self._spark.createDataFrame(self.listConsumersAsRows(streamName), CONSUMER_SCHEMA)
        return listed

    def listConsumersAsRows(self, streamName: str) -> List[Row]:
        """The stream's consumers as rows (oldest first), the columns of :meth:`listConsumers`;
        timestamps are naive local times, as Spark returns them."""
        consumers = self._backend.list(_check_str(streamName, "streamName"))
        return [
            Row(
                consumerName=name,
                consumerARN=arn,
                consumerStatus=status,
                consumerCreationTimestamp=None if created is None else created.astimezone().replace(tzinfo=None),
            )
            for name, arn, status, created in consumers
        ]

    def registerConsumer(self, streamName: str, consumerName: str) -> str:
        """Registers the consumer (or finds it), waits until it is ACTIVE; returns its ARN."""
        stream = _check_str(streamName, "streamName")
        return self._backend.register(stream, check_name(_check_str(consumerName, "consumerName")))

    def deregisterConsumer(self, streamName: str, consumerName: str) -> None:
        """Deregisters the consumer; :class:`KinesisConsumerError` with condition
        ``KINESIS_EFO_CONSUMER_NOT_FOUND`` if the stream has none of that name."""
        stream = _check_str(streamName, "streamName")
        self._backend.deregister(stream, check_name(_check_str(consumerName, "consumerName")))

    list_consumers = listConsumers
    list_consumers_as_rows = listConsumersAsRows
    register_consumer = registerConsumer
    deregister_consumer = deregisterConsumer

    def __repr__(self) -> str:
        return f"AWSKinesisConsumerManager({self._backend.where})"
