// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.credentials.AwsCredentials

/**
 * Clients and credentials providers belong to their users, counted: a query's stop never closes
 * what a sink, a read or another query still uses, and the last user's release closes it all.
 */
class ClientOwnershipSuite extends AnyFunSuite with Matchers {

  // Nothing listens here: a call fails at once, but builds the client it is made on.
  private def connection(region: String, credentials: CredentialsConfig) =
    ConnectionConfig(region, Some("http://127.0.0.1:9"), credentials)

  private def call(c: ConnectionConfig): Unit = intercept[Exception](KinesisClients.api(c).listShards("s", 10))

  test("a query's stop leaves the clients a sink still uses open; the sink's end closes them and their provider") {
    val c = connection("ap-southeast-4", CredentialsConfig.StaticKeys("AKIAOWNERSHIPSUITE01", "secret-key-1", None))
    val (clientsBefore, providersBefore) = (KinesisClients.openClients, AwsCredentials.live)
    KinesisClients.acquire(c) // the query
    val sink = KinesisClients.lease(c)
    call(c)
    KinesisClients.openClients shouldBe clientsBefore + 1
    AwsCredentials.live shouldBe providersBefore + 1
    KinesisClients.release(c) // the query stops
    KinesisClients.openClients shouldBe clientsBefore + 1
    sink.close()
    sink.close() // closing twice lets go once
    KinesisClients.userCount(c) shouldBe 0
    KinesisClients.openClients shouldBe clientsBefore
    AwsCredentials.live shouldBe providersBefore
  }

  test("a role's provider holds its base provider and STS client, and the last user closes all three") {
    val base = CredentialsConfig.StaticKeys("AKIAOWNERSHIPSUITE02", "secret-key-2", None)
    val role = CredentialsConfig.AssumeRole("arn:aws:iam::000000000000:role/reader", None, "ownership-suite",
      Some("http://127.0.0.1:9"), "ap-southeast-4", base)
    val before = AwsCredentials.live
    val first = AwsCredentials.acquire(role)
    (AwsCredentials.acquire(role) should be).theSameInstanceAs(first)
    AwsCredentials.live shouldBe before + 2
    AwsCredentials.release(role)
    AwsCredentials.live shouldBe before + 2
    AwsCredentials.release(role)
    AwsCredentials.live shouldBe before
  }

  test("describing the credentials of a failed call leaves no provider behind") {
    val before = AwsCredentials.live
    AwsCredentials.describeInUse(CredentialsConfig.Profile("no-such-profile-ownership-suite")) should include(
      "no-such-profile-ownership-suite")
    AwsCredentials.live shouldBe before
  }
}
