# SPDX-License-Identifier: Apache-2.0
"""LocalStack's Kinesis in a Docker container (testcontainers), for KINESIS_BACKEND=localstack:
the end-to-end tests against the emulator many CI systems already run. kinesis-mock stays
the default; see docs/testing-backends.md."""

import os
import socket
from contextlib import contextmanager
from urllib.parse import urlparse

# A LocalStack release with Kinesis (LOCALSTACK_IMAGE picks another).
DEFAULT_IMAGE = "localstack/localstack:4.9"


class BackendUnavailable(Exception):
    """The chosen Kinesis backend cannot run on this machine; the message says why."""


def docker_daemon_problem(timeout=5):
    """Why no Docker daemon answers at DOCKER_HOST (default: the local socket), or None."""
    host = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    url = urlparse(host)
    try:
        if url.scheme == "unix":
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            address: "str | tuple[str, int]" = url.path
        elif url.scheme == "tcp":
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            address = (url.hostname or "localhost", url.port or 2375)
        else:
            return f"DOCKER_HOST={host} is neither unix:// nor tcp://"
        with sock:
            sock.settimeout(timeout)
            sock.connect(address)
            sock.sendall(b"GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n")
            answer = sock.recv(1024).decode(errors="replace")
    except OSError as error:
        return f"no Docker daemon answers at {host} ({error})"
    return None if " 200 " in answer.split("\r\n")[0] else f"the Docker daemon at {host} answered {answer[:80]!r}"


@contextmanager
def localstack_kinesis(region):
    """Yields the endpoint of a LocalStack container running Kinesis, removed on exit.

    :raises BackendUnavailable: no Docker daemon, or no testcontainers package."""
    problem = docker_daemon_problem()
    if problem:
        raise BackendUnavailable(f"KINESIS_BACKEND=localstack needs a Docker daemon: {problem}")
    try:
        from testcontainers.localstack import LocalStackContainer
    except ImportError as error:
        raise BackendUnavailable(
            "KINESIS_BACKEND=localstack needs the testcontainers package: "
            f"pip install 'testcontainers[localstack]' ({error})"
        ) from error
    image = os.environ.get("LOCALSTACK_IMAGE", DEFAULT_IMAGE)
    with LocalStackContainer(image, region_name=region).with_services("kinesis") as container:
        yield container.get_url()
