// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import java.net.URI
import java.time.Duration

import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.sts.StsClient

import io.github.sparkkinesis.client.CredentialsConfig
import io.github.sparkkinesis.client.http.SyncHttp

/**
 * The STS client a role is assumed with. It is built here, beside the credentials that need it,
 * so that credentials do not depend on the Kinesis clients' factory (which depends on them).
 */
private[client] object StsClients {
  val StsSocketTimeout: Duration = Duration.ofSeconds(30)

  /** The STS client of `role`, signed with the role's base credentials, through its proxy. */
  def assumingWith(role: CredentialsConfig.AssumeRole, base: AwsCredentialsProvider): StsClient = {
    SdkLogging.quietSecretLoggers()
    val builder = StsClient.builder()
      .httpClientBuilder(SyncHttp.builder(SyncHttp.ConnectTimeout, StsSocketTimeout, role.proxy))
      .region(Region.of(role.stsRegion))
      .credentialsProvider(base)
    role.stsEndpoint.foreach(e => builder.endpointOverride(URI.create(e)))
    builder.build()
  }
}
