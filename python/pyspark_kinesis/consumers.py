"""Enhanced fan-out consumers: list, register and deregister them from Python.

A thin wrapper of the JVM class ``io.github.sparkkinesis.AWSKinesisConsumerManager`` (the
connector jar must be on the driver's classpath; see :func:`pyspark_kinesis.configure`)::

    from pyspark_kinesis import AWSKinesisConsumerManager

    manager = (AWSKinesisConsumerManager.newManager()
               .option("region", "us-east-1")
               .create())
    manager.listConsumers("orders").show()
    arn = manager.registerConsumer("orders", "sparkkinesis_etl")
    manager.deregisterConsumer("orders", "sparkkinesis_etl")

Consumer names are full names, as Kinesis lists them: no consumerNamePrefix is added.
Registered consumers are billed every hour, whether a query reads with them or not.

Needs a classic SparkSession (py4j); Spark Connect sessions have no JVM to call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional

from pyspark.sql import DataFrame, Row, SparkSession

from pyspark_kinesis._jvm import jvm_class

if TYPE_CHECKING:
    from py4j.java_gateway import JavaObject  # type: ignore[import-untyped]

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


def _session(spark: Optional[SparkSession]) -> SparkSession:
    if spark is None:
        active = SparkSession.getActiveSession()
        if active is None:
            raise RuntimeError(
                "AWSKinesisConsumerManager needs a running SparkSession with the connector jar: "
                "spark = pyspark_kinesis.configure(SparkSession.builder).getOrCreate()"
            )
        return active
    if not isinstance(spark, SparkSession):
        raise TypeError(f"spark must be a SparkSession, got {type(spark).__name__}")
    return spark


class AWSKinesisConsumerManagerBuilder:
    """Collects connection options (``region``, ``endpoint``, ``awsAccessKey``, ``awsSecretKey``,
    ``awsSessionToken``) for :meth:`create`; names are matched case-insensitively, and the JVM
    rejects an unknown one naming the closest known option."""

    def __init__(self, spark: SparkSession, options: Optional[Dict[str, str]] = None) -> None:
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
        """The manager. Raises ``IllegalArgumentException`` for an unknown option or a bad value."""
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

    Wraps one JVM ``AWSKinesisConsumerManager``; build it with :meth:`newManager` (or
    :meth:`new_manager`)."""

    def __init__(self, jmanager: JavaObject, spark: SparkSession) -> None:
        self._jmanager = jmanager
        self._spark = spark

    @staticmethod
    def newManager(spark: Optional[SparkSession] = None) -> AWSKinesisConsumerManagerBuilder:
        """A builder; ``spark`` defaults to the active session."""
        return AWSKinesisConsumerManagerBuilder(_session(spark))

    new_manager = newManager

    def listConsumers(self, streamName: str) -> DataFrame:
        """The stream's consumers as a DataFrame: consumerName, consumerARN, consumerStatus,
        consumerCreationTimestamp."""
        jdf = _call(self._jmanager.listConsumers, _check_str(streamName, "streamName"))
        return DataFrame(jdf, self._spark)

    def listConsumersAsRows(self, streamName: str) -> List[Row]:
        """The stream's consumers as rows (oldest first), the columns of :meth:`listConsumers`."""
        return self.listConsumers(streamName).orderBy("consumerCreationTimestamp", "consumerName").collect()

    def registerConsumer(self, streamName: str, consumerName: str) -> str:
        """Registers the consumer (or finds it), waits until it is ACTIVE; returns its ARN."""
        return str(
            _call(
                self._jmanager.registerConsumer,
                _check_str(streamName, "streamName"),
                _check_str(consumerName, "consumerName"),
            )
        )

    def deregisterConsumer(self, streamName: str, consumerName: str) -> None:
        """Deregisters the consumer; :class:`KinesisConsumerError` with condition
        ``KINESIS_EFO_CONSUMER_NOT_FOUND`` if the stream has none of that name."""
        _call(
            self._jmanager.deregisterConsumer,
            _check_str(streamName, "streamName"),
            _check_str(consumerName, "consumerName"),
        )

    list_consumers = listConsumers
    list_consumers_as_rows = listConsumersAsRows
    register_consumer = registerConsumer
    deregister_consumer = deregisterConsumer

    def __repr__(self) -> str:
        return str(self._jmanager.toString())
