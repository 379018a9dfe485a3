// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, AwsCredentials, AwsCredentialsProvider}

// Credentials provider classes as users write them, for CustomCredentialsSuite and the options suites.

/** Built by its public no-argument constructor. */
class NoArgProvider extends AwsCredentialsProvider {
  override def resolveCredentials(): AwsCredentials = AwsBasicCredentials.create("AKIANOARGPROVIDER001", "secret")
}

/** Built by its constructor taking the parameter. */
class ParamProvider(param: String) extends AwsCredentialsProvider {
  override def resolveCredentials(): AwsCredentials = AwsBasicCredentials.create(param, "secret")
}

/** Built by the static create() and create(String) its companion gives it (static forwarders). */
class CreatedProvider(val param: String, unused: Int) extends AwsCredentialsProvider {
  override def resolveCredentials(): AwsCredentials = AwsBasicCredentials.create(param, "secret")
}

object CreatedProvider {
  def create(): CreatedProvider = new CreatedProvider("AKIACREATEDNOPARAM01", 0)
  def create(param: String): CreatedProvider = new CreatedProvider(param, 0)
}

/** Its constructor refuses the parameter, quoting it, as careless code does. */
class ThrowingProvider(param: String) extends AwsCredentialsProvider {
  if (param != null) throw new IllegalArgumentException(s"cannot use '$param'")
  override def resolveCredentials(): AwsCredentials = throw new IllegalStateException("never built")
}

/** A provider only by its method's name: implements no provider interface. */
class NotAProvider {
  def resolveCredentials(): AwsCredentials = AwsBasicCredentials.create("AKIANOTAPROVIDER0001", "secret")
}

abstract class AbstractProvider extends AwsCredentialsProvider

/**
 * What a class compiled against the SDK as published answers when the connector's SDK is
 * shaded: credentials of types the connector does not know, read by their methods' names.
 */
class PublishedStyleCredentials(id: String, secret: String, token: String) {
  def accessKeyId(): String = id
  def secretAccessKey(): String = secret
  def sessionToken(): String = token
}

class PublishedStyleProvider {
  var calls = 0
  def resolveCredentials(): PublishedStyleCredentials = {
    calls += 1
    new PublishedStyleCredentials(s"ASIAPUBLISHED0000$calls", "published-secret", "published-token")
  }
}
