# SPDX-License-Identifier: Apache-2.0
"""Role credentials that expire within seconds, as AWS enforces them: moto's STS issues
sessions of SESSION_SECONDS (a test-only knob of the connector, a JVM system property read
when a query's options are parsed), and the fault proxy in front of the local Kinesis refuses
any request signed with credentials past their expiry (kinesis-mock checks no signature)."""

import time
import uuid

SESSION_SECONDS_PROPERTY = "sparkkinesis.test.assumeRoleSessionSeconds"
SESSION_SECONDS = 6


class RoleExpiries:
    """When each access key moto's STS issued for a role expires at the latest (epoch seconds):
    SESSION_SECONDS after it was first seen here (moto reports no expiry; a key is issued before
    it is first used, so it has expired by then)."""

    def __init__(self, moto, role_arn):
        self.moto, self.role_arn, self.known = moto, role_arn, {}

    def __call__(self, access_key_id):
        if access_key_id not in self.known:
            for session in self.moto.assumed_roles(self.role_arn):
                self.known.setdefault(session["access_key_id"], time.time() + SESSION_SECONDS)
        return self.known.get(access_key_id)


def expiring_role(moto, proxy, prefix="role"):
    """A user allowed to assume a new role allowed everything on Kinesis, the proxy told when the
    role's credentials expire; returns the source options that read as that role and the
    expiries (`expiries(key)` is None for keys not of the role)."""
    base_key, base_secret, base_arn = moto.create_user(f"{prefix}-base-{uuid.uuid4().hex[:8]}", ["sts:AssumeRole"])
    role_arn = moto.create_role(f"{prefix}-{uuid.uuid4().hex[:8]}", base_arn, ["kinesis:*"])
    expiries = RoleExpiries(moto, role_arn)
    proxy.refuse_expired_credentials(expiries)
    options = {"awsAccessKey": base_key, "awsSecretKey": base_secret, "roleArn": role_arn, "stsEndpoint": moto.endpoint}
    return options, expiries
