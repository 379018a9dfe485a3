# SPDX-License-Identifier: Apache-2.0
"""Kinesis request and response bodies in the two encodings clients use: JSON
(application/x-amz-json-1.1: boto3, and the Java SDK with aws.cborEnabled=false) and CBOR
(application/x-amz-cbor-1.1: the Java SDK's default). Record data is base64 text in JSON and a
byte string in CBOR."""

import base64
import json
import uuid

import cbor2

from .fault import status_of

JSON = "application/x-amz-json-1.1"
CBOR = "application/x-amz-cbor-1.1"


def is_cbor(content_type):
    return "cbor" in (content_type or "").lower()


def decode(body, content_type):
    """The body as a dict ({} when empty or not a document)."""
    if not body:
        return {}
    try:
        value = cbor2.loads(body) if is_cbor(content_type) else json.loads(body)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def encode(document, content_type):
    return cbor2.dumps(document) if is_cbor(content_type) else json.dumps(document).encode()


def data_size(data):
    """Bytes of a record's Data field in either encoding."""
    if isinstance(data, (bytes, bytearray)):
        return len(data)
    if isinstance(data, str):
        return len(base64.b64decode(data))
    return 0


def error_reply(code, message, content_type):
    """(status, headers, body) of an AWS error as the SDKs parse it: x-amzn-ErrorType names the
    code, and the body's __type too, in the client's encoding."""
    content_type = CBOR if is_cbor(content_type) else JSON
    body = encode({"__type": code, "message": message}, content_type)
    headers = [
        ("x-amzn-RequestId", str(uuid.uuid4())),
        ("x-amzn-ErrorType", code),
        ("Content-Type", content_type),
        ("Content-Length", str(len(body))),
    ]
    return status_of(code), headers, body


def stream_name(document):
    """The stream a request names: StreamName, or the name inside StreamARN / ConsumerARN."""
    if document.get("StreamName"):
        return document["StreamName"]
    arn = document.get("StreamARN") or document.get("ConsumerARN") or ""
    if ":stream/" in arn:
        return arn.split(":stream/", 1)[1].split("/", 1)[0]
    return None
