// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.credentials

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import software.amazon.awssdk.auth.credentials.{AwsCredentialsProvider, AwsSessionCredentials}

import io.github.sparkkinesis.client.CredentialsConfig.ProviderClass
import io.github.sparkkinesis.client.ConnectionConfig

class CustomCredentialsSuite extends AnyFunSuite with Matchers {
  private val secret = "provider-param-S3CRET-value"

  private def keyOf(provider: AwsCredentialsProvider) = provider.resolveCredentials().accessKeyId()

  private def failure(className: String, parameter: Option[String] = None): String =
    intercept[CredentialsProviderException](CustomCredentials.provider(ProviderClass(className, parameter)))
      .getMessage

  test("a provider is built by its no-argument constructor, or by its String constructor with the parameter") {
    keyOf(CustomCredentials.provider(ProviderClass(classOf[NoArgProvider].getName, None))) shouldBe
      "AKIANOARGPROVIDER001"
    keyOf(CustomCredentials.provider(ProviderClass(classOf[ParamProvider].getName,
          Some("AKIAPARAMGIVEN000001")))) shouldBe
      "AKIAPARAMGIVEN000001"
  }

  test("a provider without a usable constructor is built by its static create() or create(String)") {
    keyOf(CustomCredentials.provider(ProviderClass(classOf[CreatedProvider].getName, None))) shouldBe
      "AKIACREATEDNOPARAM01"
    keyOf(CustomCredentials.provider(ProviderClass(classOf[CreatedProvider].getName,
          Some("AKIACREATEDPARAM0001")))) shouldBe
      "AKIACREATEDPARAM0001"
  }

  test("the AWS SDK's own providers can be named") {
    val provider = CustomCredentials.provider(
      ProviderClass("software.amazon.awssdk.auth.credentials.AnonymousCredentialsProvider", None))
    provider.getClass.getSimpleName shouldBe "AnonymousCredentialsProvider"
  }

  test("a class that is missing, is no provider or is abstract is refused, saying which") {
    failure("com.example.NoSuchProvider") should include("class com.example.NoSuchProvider was not found")
    failure(classOf[NotAProvider].getName) should include(
      s"does not implement ${classOf[AwsCredentialsProvider].getName}")
    failure(classOf[AbstractProvider].getName) should include("is abstract")
  }

  test("a class without the constructor or create the parameter needs is refused, never quietly built without it") {
    failure(classOf[ParamProvider].getName) should include("a public no-argument constructor or a static create()")
    val withParameter = failure(classOf[NoArgProvider].getName, Some(secret))
    withParameter should include("a public constructor taking one String or a static create(String)")
    withParameter should not include secret
  }

  test("a constructor that throws is reported with its message, the parameter taken out of it") {
    val message = failure(classOf[ThrowingProvider].getName, Some(secret))
    message should include("java.lang.IllegalArgumentException: cannot use '<redacted>'")
    message should not include secret
  }

  test("a provider compiled against the SDK as published is called by reflection at every resolve") {
    val target = new PublishedStyleProvider
    val adapter = new ReflectiveProvider(target)
    val first = adapter.resolveCredentials()
    first shouldBe a[AwsSessionCredentials]
    first.accessKeyId() shouldBe "ASIAPUBLISHED00001"
    first.secretAccessKey() shouldBe "published-secret"
    first.asInstanceOf[AwsSessionCredentials].sessionToken() shouldBe "published-token"
    adapter.resolveCredentials().accessKeyId() shouldBe "ASIAPUBLISHED00002"
    target.calls shouldBe 2
  }

  test("a class is known as a provider by the published interface's name, through superclasses and interfaces") {
    CustomCredentials.implementsPublished(classOf[NoArgProvider]) shouldBe true
    CustomCredentials.implementsPublished(classOf[NotAProvider]) shouldBe false
  }

  test("the parameter is never shown by the configuration") {
    val config = ProviderClass(classOf[ParamProvider].getName, Some(secret))
    config.toString should not include secret
    config.describe should not include secret
    ConnectionConfig("us-east-1", None, config).toString should not include secret
  }
}
