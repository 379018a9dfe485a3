# SPDX-License-Identifier: Apache-2.0
"""The consumer manager's calls made from Python with boto3, for where there is no py4j: a
Spark Connect client, or no Spark session at all (``python -m pyspark_kinesis consumers``).

It takes the JVM manager's options and gives its results and errors: the same error conditions
and messages (read from the connector jar's ``error/kinesis-error-conditions.json``), the same
consumer-name rules, the same wait for a registered consumer to become ACTIVE.
"""

from __future__ import annotations

import json
import re
import time
import zipfile
from datetime import datetime
from functools import lru_cache
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["AwsConsumerCalls", "ConsumerInfo", "OPTION_NAMES"]

OPTION_NAMES = ("region", "endpoint", "awsAccessKey", "awsSecretKey", "awsSessionToken", "roleArn",
                "roleExternalId", "roleSessionName", "stsEndpoint", "profile", "awsCredentialsProvider",
                "awsCredentialsProviderSecret", "proxyHost", "proxyPort", "proxyUsername", "proxyPassword",
                "nonProxyHosts")
"""The options the manager takes (AWSKinesisConsumerManager.Options in the JVM)."""

ACTIVATION_TIMEOUT_S = 120.0  # as the JVM's ConsumerRegistry: Kinesis activates within seconds
POLL_INTERVAL_S = 0.5
_NAME = re.compile(r"[a-zA-Z0-9_.-]+")
_MAX_NAME_LENGTH = 128

ConsumerInfo = Tuple[str, str, str, Optional[datetime]]
"""consumerName, consumerARN, consumerStatus, consumerCreationTimestamp."""


@lru_cache(maxsize=1)
def _conditions() -> Dict[str, str]:
    """The connector's message templates, from any jar the package carries ({} without one)."""
    from pyspark_kinesis._jar import bundled_jars

    for jar in bundled_jars().values():
        with zipfile.ZipFile(jar) as z:
            table = json.loads(z.read("error/kinesis-error-conditions.json"))
        return {name: "\n".join(c["message"]) for name, c in table.items()}
    return {}


def format_error(condition: str, **parameters: str) -> str:
    """``[CONDITION] message`` as the JVM formats it."""
    template = _conditions().get(condition)
    if template is None:
        return f"[{condition}] " + ", ".join(f"{k}={v}" for k, v in sorted(parameters.items()))
    for key, value in parameters.items():
        template = template.replace(f"<{key}>", value)
    return f"[{condition}] {template}"


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[len(b)]


class AwsConsumerCalls:
    """List, register and deregister consumers with boto3, configured by the manager's options.

    :raises ValueError: an unknown option (naming the closest known one) or a bad value, with
        the connector's message (the JVM raises IllegalArgumentException for these).
    """

    def __init__(self, options: Dict[str, str], client_factory: Optional[Callable[..., Any]] = None) -> None:
        known = {name.lower(): name for name in OPTION_NAMES}
        values: Dict[str, str] = {}
        for key, value in options.items():
            if key.lower() not in known:
                best = min(OPTION_NAMES, key=lambda name: _edit_distance(key.lower(), name.lower()))
                close = _edit_distance(key.lower(), best.lower()) <= max(2, len(key) // 4)
                raise ValueError(format_error("KINESIS_UNKNOWN_OPTION", option=key,
                                              suggestion=f" Did you mean '{best}'?" if close else ""))
            values[known[key.lower()]] = value
        if values.get("awsCredentialsProvider"):
            # A JVM class: boto3 cannot build it.
            raise ValueError(format_error(
                "KINESIS_INVALID_OPTION_VALUE", option="awsCredentialsProvider",
                value=repr(values["awsCredentialsProvider"]),
                allowed="a JVM class, which only the connector's JVM builds: use the manager in a classic "
                        "session (py4j), or give the credentials another way (keys, profile, roleArn)"))
        self._options = values
        self._client_factory = client_factory
        self._client: Any = None

    @property
    def where(self) -> str:
        """Where requests go, as the JVM says it in errors (never credentials)."""
        region = self._options.get("region") or self._session().region_name or "<default>"
        endpoint = self._options.get("endpoint")
        return f"endpoint {endpoint}, region {region}" if endpoint else f"region {region}"

    def _session(self) -> Any:
        import boto3  # type: ignore[import-untyped]

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

        from botocore.config import Config  # type: ignore[import-untyped]

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
            assumed = {"RoleArn": role, "RoleSessionName": self._options.get("roleSessionName", "pyspark-kinesis")}
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

    def _stream_arn(self, stream: str) -> str:
        if stream.startswith("arn:"):
            return stream
        try:
            summary = self._kinesis().describe_stream_summary(StreamName=stream)
        except Exception as e:
            if _code(e) == "ResourceNotFoundException":
                raise ConsumerCallError(format_error("KINESIS_STREAM_NOT_FOUND", stream=stream, where=self.where),
                                        "KINESIS_STREAM_NOT_FOUND") from None
            raise self._api_failed("DescribeStreamSummary", f"stream '{stream}'", e) from None
        return str(summary["StreamDescriptionSummary"]["StreamARN"])

    def _api_failed(self, operation: str, target: str, e: Exception) -> ConsumerCallError:
        return ConsumerCallError(format_error("KINESIS_API_FAILED", operation=operation, target=target,
                                              where=self.where, reason=str(e)), "KINESIS_API_FAILED")

    def list(self, stream: str) -> List[ConsumerInfo]:
        """The stream's consumers, oldest first (then by name)."""
        arn = self._stream_arn(stream)
        found: List[ConsumerInfo] = []
        request: Dict[str, Any] = {"StreamARN": arn}
        try:
            while True:
                page = self._kinesis().list_stream_consumers(**request)
                found += [(c["ConsumerName"], c["ConsumerARN"], c["ConsumerStatus"],
                           c.get("ConsumerCreationTimestamp")) for c in page.get("Consumers", [])]
                if not page.get("NextToken"):
                    break
                request = {"StreamARN": arn, "NextToken": page["NextToken"]}
        except Exception as e:
            raise self._api_failed("ListStreamConsumers", f"stream '{stream}'", e) from None
        return sorted(found, key=lambda c: (c[3].timestamp() if c[3] else 0.0, c[0]))

    def register(self, stream: str, name: str) -> str:
        """The ARN of the ACTIVE consumer ``name``: found, or registered and waited for."""
        _check_name(name)
        arn = self._stream_arn(stream)
        deadline = time.monotonic() + ACTIVATION_TIMEOUT_S
        status = "not registered"
        while True:
            consumer = self._describe(arn, stream, name)
            if consumer is None:
                try:
                    consumer = self._kinesis().register_stream_consumer(StreamARN=arn, ConsumerName=name)["Consumer"]
                except Exception as e:
                    if _code(e) != "ResourceInUseException":  # Registered or being deleted elsewhere.
                        raise self._api_failed("RegisterStreamConsumer", f"consumer '{name}'", e) from None
            if consumer is not None:
                status = consumer["ConsumerStatus"]
                if status == "ACTIVE":
                    return str(consumer["ConsumerARN"])
            if time.monotonic() >= deadline:
                raise ConsumerCallError(format_error(
                    "KINESIS_EFO_CONSUMER_NOT_ACTIVE", stream=stream, consumer=name,
                    timeout=f"{ACTIVATION_TIMEOUT_S}s", status=status, where=self.where),
                    "KINESIS_EFO_CONSUMER_NOT_ACTIVE")
            time.sleep(POLL_INTERVAL_S)

    def deregister(self, stream: str, name: str) -> None:
        """Deregisters ``name``; KINESIS_EFO_CONSUMER_NOT_FOUND if the stream has none."""
        _check_name(name)
        arn = self._stream_arn(stream)
        try:
            self._kinesis().deregister_stream_consumer(StreamARN=arn, ConsumerName=name)
        except Exception as e:
            if _code(e) == "ResourceNotFoundException":
                raise ConsumerCallError(format_error("KINESIS_EFO_CONSUMER_NOT_FOUND", stream=stream,
                                                     consumer=name, where=self.where),
                                        "KINESIS_EFO_CONSUMER_NOT_FOUND") from None
            raise self._api_failed("DeregisterStreamConsumer", f"consumer '{name}'", e) from None

    def _describe(self, arn: str, stream: str, name: str) -> Optional[Dict[str, Any]]:
        try:
            return dict(self._kinesis().describe_stream_consumer(
                StreamARN=arn, ConsumerName=name)["ConsumerDescription"])
        except Exception as e:
            if _code(e) == "ResourceNotFoundException":
                return None
            raise self._api_failed("DescribeStreamConsumer", f"consumer '{name}'", e) from None


class ConsumerCallError(RuntimeError):
    """A failed call, with the connector's condition; consumers.py raises it as
    KinesisConsumerError, as it does the JVM's."""

    def __init__(self, message: str, condition: str) -> None:
        super().__init__(message)
        self.condition = condition


def _check_name(name: str) -> None:
    """The JVM's ConsumerNames.validate: Kinesis's rules, checked before any call."""
    reason = None
    if not name:
        reason = "it is empty"
    elif len(name) > _MAX_NAME_LENGTH:
        reason = f"it has {len(name)} characters, more than {_MAX_NAME_LENGTH}"
    elif not _NAME.fullmatch(name):
        bad = dict.fromkeys(c for c in name if not (c.isascii() and c.isalnum() or c in "_.-"))
        reason = "it contains " + ", ".join(f"'{c}'" for c in bad)
    if reason:
        raise ValueError(format_error("KINESIS_EFO_CONSUMER_NAME_INVALID", name=name, reason=reason))


def _code(error: Exception) -> str:
    response = getattr(error, "response", None) or {}
    return str(response.get("Error", {}).get("Code", ""))
