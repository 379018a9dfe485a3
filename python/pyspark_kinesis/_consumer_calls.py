# SPDX-License-Identifier: Apache-2.0
"""What the consumer manager asks of a backend: the JVM's manager through py4j
(``_jvm_consumers.py``) or boto3 (``_aws_consumers.py``). Both take options and consumer names
the manager has already checked, and raise :class:`~pyspark_kinesis.consumers.KinesisConsumerError`
with the connector's error condition and message.
"""

from __future__ import annotations

from datetime import datetime
from typing import List, Optional, Protocol, Tuple

ConsumerInfo = Tuple[str, str, str, Optional[datetime]]
"""consumerName, consumerARN, consumerStatus, consumerCreationTimestamp (timezone-aware)."""


class ConsumerCalls(Protocol):
    """List, register and deregister the enhanced fan-out consumers of a stream."""

    @property
    def where(self) -> str:
        """Where requests go, as errors say it (never credentials)."""
        ...

    def list(self, stream: str) -> List[ConsumerInfo]:
        """The stream's consumers, oldest first (then by name)."""
        ...

    def register(self, stream: str, name: str) -> str:
        """The ARN of the ACTIVE consumer ``name``: found, or registered and waited for."""
        ...

    def deregister(self, stream: str, name: str) -> None:
        """Deregisters ``name``; KINESIS_EFO_CONSUMER_NOT_FOUND if the stream has none."""
        ...
