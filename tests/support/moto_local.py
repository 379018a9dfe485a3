# SPDX-License-Identifier: Apache-2.0
"""moto's server for the authentication tests: STS that assumes roles (and records what it
was asked), IAM users and roles with policies, and a Kinesis that, unlike kinesis-mock,
checks SigV4 signatures against the IAM access keys it issued and the identity's policies.

Started from localstack/start-moto.sh on a free loopback port, stopped by
localstack/stop-moto.sh. Kept free of pytest so it can be driven by hand too.

What moto checks once `enable_iam_auth()` ran (moto 5.2, moto/core/authorization.py and
moto/iam/access_control.py): the access key id exists (an IAM user's key, or temporary
credentials it issued through AssumeRole, with their session token); the signature,
recomputed with that key's secret; the action against the identity's IAM policies; and for
sts:AssumeRole the role's trust policy, including an sts:ExternalId condition. It does not
expire temporary credentials: their Expiration is only reported.

The JVM's Kinesis client speaks CBOR unless -Daws.cborEnabled=false; moto's Kinesis only
JSON, so JVMs that talk to moto's Kinesis set that property.
"""

import json
import os
import subprocess
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import boto3
from botocore.config import Config

from kinesis_local import LOCALSTACK, Kinesis, free_ports

# Requests made before authentication is switched on need some credentials; moto ignores them.
SETUP_CREDENTIALS = {"aws_access_key_id": "AKIAMOTOSETUP0000000", "aws_secret_access_key": "moto-setup"}

READ_ACTIONS = [
    "kinesis:ListShards",
    "kinesis:GetShardIterator",
    "kinesis:GetRecords",
    "kinesis:DescribeStream",
    "kinesis:DescribeStreamSummary",
]


def policy(actions, effect="Allow", resource="*"):
    return json.dumps(
        {"Version": "2012-10-17", "Statement": [{"Effect": effect, "Action": actions, "Resource": resource}]}
    )


class Moto:
    """A running moto server: endpoint, region, an admin identity, and helpers to create the
    users, roles and streams a test needs, and to read what STS was asked."""

    def __init__(self, endpoint, region):
        self.endpoint = endpoint
        self.region = region
        self._config = Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=5, read_timeout=30)
        iam = self._client("iam", SETUP_CREDENTIALS)
        # The admin exists before authentication is on; everything afterwards is signed with it.
        iam.create_user(UserName="admin")
        iam.put_user_policy(UserName="admin", PolicyName="all", PolicyDocument=policy("*"))
        key = iam.create_access_key(UserName="admin")["AccessKey"]
        self.admin = {"aws_access_key_id": key["AccessKeyId"], "aws_secret_access_key": key["SecretAccessKey"]}
        self.account = self._client("sts", SETUP_CREDENTIALS).get_caller_identity()["Account"]
        self.kinesis = Kinesis(endpoint, region, credentials=self.admin)

    def _client(self, service, credentials=None):
        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=self.region,
            config=self._config,
            **(credentials or self.admin),
        )

    def enable_iam_auth(self):
        """From now on every request must be signed by a known key and allowed by policy."""
        self._moto_api("reset-auth", b"0")

    def create_user(self, name, actions):
        """An IAM user allowed `actions`; returns its (access key id, secret key)."""
        iam = self._client("iam")
        arn = iam.create_user(UserName=name)["User"]["Arn"]
        if actions:
            iam.put_user_policy(UserName=name, PolicyName="p", PolicyDocument=policy(actions))
        key = iam.create_access_key(UserName=name)["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"], arn

    def create_role(self, name, trusted_arn, actions, external_id=None):
        """A role `trusted_arn` may assume (only with `external_id`, if given), allowed `actions`."""
        statement = {"Effect": "Allow", "Principal": {"AWS": trusted_arn}, "Action": "sts:AssumeRole"}
        if external_id:
            statement["Condition"] = {"StringEquals": {"sts:ExternalId": external_id}}
        iam = self._client("iam")
        arn = iam.create_role(
            RoleName=name, AssumeRolePolicyDocument=json.dumps({"Version": "2012-10-17", "Statement": [statement]})
        )["Role"]["Arn"]
        iam.put_role_policy(RoleName=name, PolicyName="p", PolicyDocument=policy(actions))
        return arn

    def assumed_roles(self, role_arn=None):
        """Every AssumeRole moto answered, oldest first (session_name, external_id, role_arn,
        access_key_id, ...; not when the credentials expire)."""
        data = json.loads(self._moto_api("data.json"))
        roles = data.get("sts", {}).get("AssumedRole", [])
        return [r for r in roles if role_arn is None or r.get("role_arn") == role_arn]

    def _moto_api(self, path, data=None):
        request = urllib.request.Request(
            f"{self.endpoint}/moto-api/{path}",
            data=data,
            method="POST" if data is not None else "GET",
            headers={"Content-Type": "text/plain"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.read()

    def close(self):
        self.kinesis.close()


def start_moto(run_dir, port, timeout=60):
    import sys

    env = dict(os.environ, MOTO_LOCAL_RUN_DIR=str(run_dir), MOTO_LOCAL_PORT=str(port), MOTO_LOCAL_PYTHON=sys.executable)
    subprocess.run([str(LOCALSTACK / "start-moto.sh")], env=env, check=True, timeout=timeout)


def stop_moto(run_dir, timeout=30):
    env = dict(os.environ, MOTO_LOCAL_RUN_DIR=str(run_dir))
    subprocess.run([str(LOCALSTACK / "stop-moto.sh")], env=env, check=True, timeout=timeout)


@contextmanager
def moto_for_tests(tmp_dir, region="us-east-1"):
    """Yields a Moto on a free loopback port, run files under tmp_dir; stopped on exit."""
    run_dir = Path(tmp_dir) / "moto"
    try:
        for attempt in range(3):
            (port,) = free_ports(1)
            try:
                start_moto(run_dir, port)
                break
            except subprocess.CalledProcessError:
                if attempt == 2:
                    raise
                time.sleep(0.2)
        moto = Moto(f"http://127.0.0.1:{port}", region)
        try:
            yield moto
        finally:
            moto.close()
    finally:
        stop_moto(run_dir)
