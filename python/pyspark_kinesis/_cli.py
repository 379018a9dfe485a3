# SPDX-License-Identifier: Apache-2.0
"""``python -m pyspark_kinesis consumers list|register|deregister``: manage enhanced fan-out
consumers from a shell, mainly to find and remove orphans (consumers cost money every hour).

It starts no Spark and needs no Java (the calls go through boto3). Credentials come from the
AWS default chain (environment, ``~/.aws`` profiles with
``AWS_PROFILE``, instance roles); the command takes none on its command line, so none end up in
shell histories or process lists, and it never prints any.

``python -m pyspark_kinesis offsets ...`` is the connector jar's checkpoint tool, run in a JVM:
see :mod:`pyspark_kinesis._offsets`.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, timezone
from typing import IO, TYPE_CHECKING, List, Optional, Sequence

from pyspark_kinesis._units import parse_duration

if TYPE_CHECKING:
    from pyspark.sql import Row, SparkSession

    from pyspark_kinesis.consumers import AWSKinesisConsumerManager

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m pyspark_kinesis",
        description="Tools of the Kinesis connector for Spark. Credentials come from the AWS "
        "default chain (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, instance roles).",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    consumers = commands.add_parser(
        "consumers",
        help="list, register or deregister enhanced fan-out consumers",
        description="Enhanced fan-out consumers are billed per hour and per shard while they "
        "exist, whether a query reads with them or not: deregister the ones nothing uses.",
    )
    actions = consumers.add_subparsers(dest="action", required=True)

    def common(p: argparse.ArgumentParser, name: str) -> None:
        p.add_argument("--stream", required=True, help="stream name")
        if name == "required":
            p.add_argument("--name", required=True, help="consumer name (after --prefix, if given)")
        p.add_argument(
            "--prefix",
            default="",
            help="consumer name prefix: for list, show only names "
            "starting with it (e.g. sparkkinesis_); otherwise put before --name",
        )
        p.add_argument("--region", help="AWS region (default: the SDK's resolution, e.g. AWS_REGION)")
        # --endpoint-url as in the AWS CLI and the offsets tool; --endpoint (the option's name) also works.
        p.add_argument(
            "--endpoint-url",
            "--endpoint",
            dest="endpoint",
            metavar="URL",
            help="Kinesis endpoint URL (a local Kinesis, VPC endpoints); --endpoint is the same",
        )

    listing = actions.add_parser("list", help="list a stream's consumers as a table")
    common(listing, "optional")
    listing.add_argument(
        "--orphans-older-than",
        metavar="DURATION",
        help="show only consumers created longer ago than this (e.g. 1h, 2d): candidates to "
        "deregister if no running query uses them",
    )
    register = actions.add_parser("register", help="register a consumer (or find it) and print its ARN")
    common(register, "required")
    deregister = actions.add_parser("deregister", help="deregister one consumer, named explicitly")
    common(deregister, "required")
    # Parsed by the connector jar's tool (see _offsets.py); listed here for --help.
    commands.add_parser(
        "offsets",
        help="show a checkpoint's positions, or carry a qubole or awslabs query's progress over (offsets --help)",
    )
    return parser


def _table(rows: Sequence[Row]) -> str:
    header = ["NAME", "STATUS", "CREATED (UTC)", "ARN"]
    lines = [header] + [
        [
            str(r["consumerName"]),
            str(r["consumerStatus"]),
            (
                _utc(r["consumerCreationTimestamp"]).strftime("%Y-%m-%d %H:%M:%S")
                if r["consumerCreationTimestamp"]
                else ""
            ),
            str(r["consumerARN"]),
        ]
        for r in rows
    ]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def _utc(value: datetime) -> datetime:
    # Spark returns naive datetimes in the driver's local time zone, which astimezone assumes.
    return value.astimezone(timezone.utc)


def _manager(spark: Optional[SparkSession], args: argparse.Namespace) -> AWSKinesisConsumerManager:
    from pyspark_kinesis.consumers import AWSKinesisConsumerManager

    builder = AWSKinesisConsumerManager.newManager(spark)
    if args.region:
        builder = builder.option("region", args.region)
    if args.endpoint:
        builder = builder.option("endpoint", args.endpoint)
    return builder.create()


def run(args: argparse.Namespace, spark: Optional[SparkSession], out: IO[str]) -> int:
    """Runs a parsed consumers command on ``spark``; returns the exit code."""
    manager = _manager(spark, args)
    if args.action == "list":
        rows: List[Row] = [
            r for r in manager.listConsumersAsRows(args.stream) if str(r["consumerName"]).startswith(args.prefix)
        ]
        if args.orphans_older_than:
            _, age = parse_duration("--orphans-older-than", args.orphans_older_than)
            cutoff = datetime.now(timezone.utc) - age
            rows = [
                r
                for r in rows
                if r["consumerCreationTimestamp"] is not None and _utc(r["consumerCreationTimestamp"]) < cutoff
            ]
        if rows:
            print(_table(rows), file=out)
        what = "consumers" + (f" named {args.prefix}*" if args.prefix else "")
        if args.orphans_older_than:
            print(
                f"{len(rows)} {what} of stream {args.stream} created more than "
                f"{args.orphans_older_than} ago. Each one that no running query uses costs money "
                f"until deregistered: python -m pyspark_kinesis consumers deregister "
                f"--stream {args.stream} --name NAME",
                file=out,
            )
        else:
            print(f"{len(rows)} {what} of stream {args.stream}.", file=out)
        return EXIT_OK
    name = args.prefix + args.name
    if args.action == "register":
        print(manager.registerConsumer(args.stream, name), file=out)
        return EXIT_OK
    manager.deregisterConsumer(args.stream, name)
    print(f"Deregistered consumer {name} of stream {args.stream}.", file=out)
    return EXIT_OK


def main(
    argv: Optional[Sequence[str]] = None,
    spark: Optional[SparkSession] = None,
    out: IO[str] = sys.stdout,
    err: IO[str] = sys.stderr,
) -> int:
    """The command line; ``spark`` and the streams are for tests. Without ``spark`` it starts no
    Spark and needs no Java: the calls go through boto3 (see consumers.py). Exit codes: 0 done,
    1 the call failed (the message says why), 2 bad usage. ``offsets`` runs in a JVM (see _offsets.py)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if words[:1] == ["offsets"]:
        from pyspark_kinesis import _offsets

        return _offsets.run(words[1:], out, err)
    try:
        args = _parser().parse_args(argv)
    except SystemExit as e:  # argparse has printed the usage error.
        return EXIT_USAGE if e.code else EXIT_OK
    if getattr(args, "orphans_older_than", None):
        try:
            parse_duration("--orphans-older-than", args.orphans_older_than)
        except (ValueError, TypeError) as e:
            print(f"error: {e}", file=err)
            return EXIT_USAGE

    from pyspark_kinesis.consumers import KinesisConsumerError

    try:
        return run(args, spark, out)
    except KinesisConsumerError as e:
        print(f"error: {e}", file=err)
        return EXIT_FAILED
    except Exception as e:  # ValueError or IllegalArgumentException for options, and the like.
        print(f"error: {e}", file=err)
        return EXIT_FAILED
