# SPDX-License-Identifier: Apache-2.0
"""The consumer calls made from Python with boto3, for where there is no py4j: a Spark Connect
client, or no Spark session at all (``python -m pyspark_kinesis consumers``).

It takes the JVM manager's options and gives its results and errors: the same error
conditions and messages, the same wait for a registered consumer to become ACTIVE
(``_registry.json`` holds both, from the JVM).
"""

from __future__ import annotations

import importlib.util
import time
from typing import Any, Callable, Dict, List, Optional, Tuple, Type

from pyspark_kinesis._consumer_calls import ConsumerInfo
from pyspark_kinesis._consumer_rules import KinesisConsumerArgumentError, KinesisConsumerError, format_error
from pyspark_kinesis._registry import CONSUMER_MANAGER, option

__all__ = ["AwsConsumerCalls", "BOTO3_EXTRA"]

BOTO3_EXTRA = "pyspark-kinesis[consumers]"
"""The install that brings boto3: the package itself needs it only for these calls."""


class AwsConsumerCalls:
    """List, register and deregister consumers with boto3, configured by the manager's options
    (already checked, by the names the manager reads)."""

    def __init__(self, options: Dict[str, str], client_factory: Optional[Callable[..., Any]] = None) -> None:
        if options.get("awsCredentialsProvider"):
            # A JVM class: boto3 cannot build it.
            raise KinesisConsumerArgumentError(
                format_error(
                    "KINESIS_INVALID_OPTION_VALUE",
                    option="awsCredentialsProvider",
                    value=repr(options["awsCredentialsProvider"]),
                    allowed="a JVM class, which only the connector's JVM builds: use the manager in a classic "
                    "session (py4j), or give the credentials another way (keys, profile, roleArn)",
                ),
                "KINESIS_INVALID_OPTION_VALUE",
            )
        if client_factory is None and importlib.util.find_spec("boto3") is None:
            raise ModuleNotFoundError(
                "without a classic Spark session (Spark Connect, or python -m pyspark_kinesis consumers) the "
                f"consumer manager calls AWS with boto3, which is not installed: pip install '{BOTO3_EXTRA}'",
                name="boto3",
            )
        self._options = dict(options)
        self._client_factory = client_factory
        self._client: Any = None

    @property
    def where(self) -> str:
        region = self._options.get("region") or self._session().region_name or "<default>"
        endpoint = self._options.get("endpoint")
        return f"endpoint {endpoint}, region {region}" if endpoint else f"region {region}"

    def _session(self) -> Any:
        import boto3

        return boto3.session.Session(
            aws_access_key_id=self._options.get("awsAccessKey"),
            aws_secret_access_key=self._options.get("awsSecretKey"),
            aws_session_token=self._options.get("awsSessionToken"),
            region_name=self._options.get("region"),
            profile_name=self._options.get("profile"),
        )

    def _config(self) -> Any:
        """botocore's settings: the proxy of the options, if any (nonProxyHosts is the JVM's alone)."""
        from urllib.parse import quote

        from botocore.config import Config

        host = self._options.get("proxyHost")
        if not host:
            return None
        user = self._options.get("proxyUsername")
        login = f"{quote(user, safe='')}:{quote(self._options.get('proxyPassword', ''), safe='')}@" if user else ""
        url = f"http://{login}{host}:{self._options.get('proxyPort', '')}"
        return Config(proxies={"http": url, "https": url})

    def _kinesis(self) -> Any:
        if self._client is None:
            if self._client_factory is not None:
                self._client = self._client_factory(self._options)
            else:
                self._client = self._make_client()
        return self._client

    def _make_client(self) -> Any:
        session = self._session()
        role = self._options.get("roleArn")
        if role:
            sts = session.client("sts", endpoint_url=self._options.get("stsEndpoint"), config=self._config())
            session_name = self._options.get("roleSessionName") or option("roleSessionName").default
            assumed = {"RoleArn": role, "RoleSessionName": str(session_name)}
            if self._options.get("roleExternalId"):
                assumed["ExternalId"] = self._options["roleExternalId"]
            credentials = sts.assume_role(**assumed)["Credentials"]
            import boto3

            session = boto3.session.Session(
                aws_access_key_id=credentials["AccessKeyId"],
                aws_secret_access_key=credentials["SecretAccessKey"],
                aws_session_token=credentials["SessionToken"],
                region_name=session.region_name,
            )
        return session.client("kinesis", endpoint_url=self._options.get("endpoint"), config=self._config())

    def _failed(self, condition: str, **parameters: str) -> KinesisConsumerError:
        return KinesisConsumerError(format_error(condition, where=self.where, **parameters), condition)

    def _api_failed(self, operation: str, target: str, e: Exception) -> KinesisConsumerError:
        return self._failed("KINESIS_API_FAILED", operation=operation, target=target, reason=str(e))

    def _stream_arn(self, stream: str) -> str:
        if stream.startswith("arn:"):
            return stream
        try:
            summary = self._kinesis().describe_stream_summary(StreamName=stream)
        except _aws_errors() as e:
            if _code(e) == "ResourceNotFoundException":
                raise self._failed("KINESIS_STREAM_NOT_FOUND", stream=stream) from None
            raise self._api_failed("DescribeStreamSummary", f"stream '{stream}'", e) from None
        return str(summary["StreamDescriptionSummary"]["StreamARN"])

    def list(self, stream: str) -> List[ConsumerInfo]:
        arn = self._stream_arn(stream)
        found: List[ConsumerInfo] = []
        request: Dict[str, Any] = {"StreamARN": arn}
        try:
            while True:
                page = self._kinesis().list_stream_consumers(**request)
                found += [
                    (c["ConsumerName"], c["ConsumerARN"], c["ConsumerStatus"], c.get("ConsumerCreationTimestamp"))
                    for c in page.get("Consumers", [])
                ]
                if not page.get("NextToken"):
                    break
                request = {"StreamARN": arn, "NextToken": page["NextToken"]}
        except _aws_errors() as e:
            raise self._api_failed("ListStreamConsumers", f"stream '{stream}'", e) from None
        return sorted(found, key=lambda c: (c[3].timestamp() if c[3] else 0.0, c[0]))

    def register(self, stream: str, name: str) -> str:
        arn = self._stream_arn(stream)
        timeout = CONSUMER_MANAGER.activation_timeout.total_seconds()
        deadline = time.monotonic() + timeout
        status = "not registered"
        while True:
            consumer = self._describe(arn, name)
            if consumer is None:
                try:
                    consumer = self._kinesis().register_stream_consumer(StreamARN=arn, ConsumerName=name)["Consumer"]
                except _aws_errors() as e:
                    if _code(e) != "ResourceInUseException":  # Registered or being deleted elsewhere.
                        raise self._api_failed("RegisterStreamConsumer", f"consumer '{name}'", e) from None
            if consumer is not None:
                status = consumer["ConsumerStatus"]
                if status == "ACTIVE":
                    return str(consumer["ConsumerARN"])
            if time.monotonic() >= deadline:
                raise self._failed(
                    "KINESIS_EFO_CONSUMER_NOT_ACTIVE",
                    stream=stream,
                    consumer=name,
                    timeout=f"{timeout}s",
                    status=status,
                )
            time.sleep(CONSUMER_MANAGER.poll_interval.total_seconds())

    def deregister(self, stream: str, name: str) -> None:
        arn = self._stream_arn(stream)
        try:
            self._kinesis().deregister_stream_consumer(StreamARN=arn, ConsumerName=name)
        except _aws_errors() as e:
            if _code(e) == "ResourceNotFoundException":
                raise self._failed("KINESIS_EFO_CONSUMER_NOT_FOUND", stream=stream, consumer=name) from None
            raise self._api_failed("DeregisterStreamConsumer", f"consumer '{name}'", e) from None

    def _describe(self, arn: str, name: str) -> Optional[Dict[str, Any]]:
        try:
            return dict(
                self._kinesis().describe_stream_consumer(StreamARN=arn, ConsumerName=name)["ConsumerDescription"]
            )
        except _aws_errors() as e:
            if _code(e) == "ResourceNotFoundException":
                return None
            raise self._api_failed("DescribeStreamConsumer", f"consumer '{name}'", e) from None


def _aws_errors() -> Tuple[Type[Exception], ...]:
    """What boto3 raises for a failed call: the service's error answers and the client's own."""
    from botocore.exceptions import BotoCoreError, ClientError

    return (BotoCoreError, ClientError)


def _code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))
