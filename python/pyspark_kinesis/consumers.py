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

Bad options and consumer names raise ``IllegalArgumentException`` through py4j and
``ValueError`` under boto3, with the same ``[KINESIS_...]`` message.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from pyspark.sql import DataFrame, Row, SparkSession

from pyspark_kinesis._aws_consumers import AwsConsumerCalls, ConsumerCallError
from pyspark_kinesis._jvm import jvm_class

__all__ = ["AWSKinesisConsumerManager", "AWSKinesisConsumerManagerBuilder", "KinesisConsumerError"]

JVM_CLASS = "io.github.sparkkinesis.AWSKinesisConsumerManager"


class KinesisConsumerError(RuntimeError):
    """A consumer call failed in the JVM; the message is the connector's, e.g.
    ``[KINESIS_EFO_CONSUMER_NOT_FOUND] Stream 'orders' has no ... consumer named 'x' ...``.
    ``condition`` is the error condition (``KINESIS_...``) when the JVM error carries one."""

    def __init__(self, message: str, condition: Optional[str] = None) -> None:
        super().__init__(message)
        self.condition = condition


def _check_str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _call(method: Any, *args: Any) -> Any:
    """Calls a JVM method, turning a Java exception into :class:`KinesisConsumerError`.

    Option errors stay the ``IllegalArgumentException`` PySpark raises for them."""
    from py4j.protocol import Py4JJavaError  # type: ignore[import-untyped]

    try:
        return method(*args)
    except Py4JJavaError as e:
        java = e.java_exception
        message = str(java.getMessage())
        condition = None
        try:
            condition = java.getCondition()
        except Exception:  # Not a SparkThrowable: a plain Java error.
            pass
        raise KinesisConsumerError(message, None if condition is None else str(condition)) from None


CONSUMER_SCHEMA = ("consumerName STRING NOT NULL, consumerARN STRING NOT NULL, "
                   "consumerStatus STRING NOT NULL, consumerCreationTimestamp TIMESTAMP")
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
    """Collects connection options (``region``, ``endpoint``, the credentials options such as
    ``awsAccessKey``, ``awsSecretKey``, ``roleArn`` or ``profile``, and the proxy's) for
    :meth:`create`; names are matched case-insensitively, and the JVM rejects an unknown one
    naming the closest known option."""

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
        """The manager: through py4j with a classic session, else through boto3. Raises
        ``IllegalArgumentException`` (py4j) or ``ValueError`` (boto3) for an unknown option."""
        if self._spark is None or not _has_jvm(self._spark):
            return AWSKinesisConsumerManager(AwsConsumerCalls(self._options), self._spark)
        jbuilder = jvm_class(self._spark, JVM_CLASS).newManager()
        for key, value in self._options.items():
            jbuilder = jbuilder.option(key, value)
        return AWSKinesisConsumerManager(_call(jbuilder.create), self._spark)

    def __repr__(self) -> str:
        from pyspark_kinesis.options import SECRET_OPTION_NAMES

        secret = {name.lower() for name in SECRET_OPTION_NAMES}
        shown = ", ".join(
            f"{k}={'<redacted>' if k.lower() in secret else v}" for k, v in sorted(self._options.items())
        )
        return f"AWSKinesisConsumerManagerBuilder({shown})"


class AWSKinesisConsumerManager:
    """Lists, registers and deregisters the enhanced fan-out consumers of a stream.

    Wraps one JVM ``AWSKinesisConsumerManager`` (classic session) or one boto3 client (Spark
    Connect, or no session); build it with :meth:`newManager` (or :meth:`new_manager`)."""

    def __init__(self, backend: Any, spark: Optional[Any]) -> None:
        self._backend = backend
        self._spark = spark

    @property
    def _aws(self) -> Optional[AwsConsumerCalls]:
        return self._backend if isinstance(self._backend, AwsConsumerCalls) else None

    @staticmethod
    def newManager(spark: Optional[Any] = None) -> AWSKinesisConsumerManagerBuilder:
        """A builder; ``spark`` defaults to the active session (none is needed but for
        :meth:`listConsumers`)."""
        return AWSKinesisConsumerManagerBuilder(_session(spark))

    new_manager = newManager

    def listConsumers(self, streamName: str) -> DataFrame:
        """The stream's consumers as a DataFrame: consumerName, consumerARN, consumerStatus,
        consumerCreationTimestamp."""
        _check_str(streamName, "streamName")
        if self._aws is None:
            return DataFrame(_call(self._backend.listConsumers, streamName), self._spark)  # type: ignore[arg-type]
        if self._spark is None:
            raise RuntimeError("listConsumers returns a DataFrame and needs a SparkSession (classic or "
                               "Spark Connect); without one, use listConsumersAsRows")
        return self._spark.createDataFrame(self.listConsumersAsRows(streamName), CONSUMER_SCHEMA)  # type: ignore[no-any-return]

    def listConsumersAsRows(self, streamName: str) -> List[Row]:
        """The stream's consumers as rows (oldest first), the columns of :meth:`listConsumers`;
        timestamps are naive local times, as Spark returns them."""
        if self._aws is None:
            return self.listConsumers(streamName).orderBy("consumerCreationTimestamp", "consumerName").collect()
        consumers = _aws_call(self._aws.list, _check_str(streamName, "streamName"))
        return [Row(consumerName=name, consumerARN=arn, consumerStatus=status,
                    consumerCreationTimestamp=None if created is None else created.astimezone().replace(tzinfo=None))
                for name, arn, status, created in consumers]

    def registerConsumer(self, streamName: str, consumerName: str) -> str:
        """Registers the consumer (or finds it), waits until it is ACTIVE; returns its ARN."""
        stream, name = _check_str(streamName, "streamName"), _check_str(consumerName, "consumerName")
        if self._aws is not None:
            return str(_aws_call(self._aws.register, stream, name))
        return str(_call(self._backend.registerConsumer, stream, name))

    def deregisterConsumer(self, streamName: str, consumerName: str) -> None:
        """Deregisters the consumer; :class:`KinesisConsumerError` with condition
        ``KINESIS_EFO_CONSUMER_NOT_FOUND`` if the stream has none of that name."""
        stream, name = _check_str(streamName, "streamName"), _check_str(consumerName, "consumerName")
        if self._aws is not None:
            _aws_call(self._aws.deregister, stream, name)
        else:
            _call(self._backend.deregisterConsumer, stream, name)

    list_consumers = listConsumers
    list_consumers_as_rows = listConsumersAsRows
    register_consumer = registerConsumer
    deregister_consumer = deregisterConsumer

    def __repr__(self) -> str:
        if self._aws is not None:
            return f"AWSKinesisConsumerManager({self._aws.where})"
        return str(self._backend.toString())


def _aws_call(method: Any, *args: Any) -> Any:
    """Calls a boto3-backed method, raising its failures as :class:`KinesisConsumerError`."""
    try:
        return method(*args)
    except ConsumerCallError as e:
        raise KinesisConsumerError(str(e), e.condition) from None
