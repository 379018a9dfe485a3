// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.client.CredentialsConfig
import io.github.sparkkinesis.client.credentials.{AwsCredentials, CredentialsProviderException, CustomCredentials}
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Where credentials come from when no role is assumed, or what a role is assumed with: keys
 * (`awsAccessKey` + `awsSecretKey`, `awsSessionToken`), a `profile`, or a provider class
 * (`awsCredentialsProvider` + `awsCredentialsProviderSecret`); at most one of them, else the AWS
 * SDK's default chain.
 */
private[options] object CredentialSources {
  import KinesisOptions._
  import ConnectionOptions.nonEmpty

  // The characters the AWS SDK allows in a profile name.
  private val ProfileNamePattern = "[A-Za-z0-9_./%@:+-]{1,256}".r

  def base(values: OptionValues): CredentialsConfig = {
    val keys = staticKeys(values)
    val profile = nonEmpty(values, Profile).map { name =>
      if (!ProfileNamePattern.pattern.matcher(name).matches()) {
        throw values.invalid(Profile, name,
          "the name of a profile of the AWS shared credentials or config files: " +
            "letters, digits and _ . / % @ : + -")
      }
      CredentialsConfig.Profile(name)
    }
    val provider = providerClass(values)
    val sources = Seq(keys -> Seq(AwsAccessKey, AwsSecretKey), profile -> Seq(Profile),
      provider -> Seq(AwsCredentialsProvider)).collect { case (Some(c), specs) => c -> specs }
    if (sources.size > 1) {
      throw KinesisErrors.conflictingOptions(sources.flatMap(_._2).map(values.name),
        "they are different sources of credentials: give one (with roleArn, the one the role is assumed with)")
    }
    sources.headOption.map(_._1).getOrElse(CredentialsConfig.DefaultChain)
  }

  private def staticKeys(values: OptionValues): Option[CredentialsConfig.StaticKeys] = {
    val accessKey = values.get(AwsAccessKey).filter(_.nonEmpty)
    val secretKey = values.get(AwsSecretKey).filter(_.nonEmpty)
    val token = values.get(AwsSessionToken).filter(_.nonEmpty)
    (accessKey, secretKey) match {
      case (Some(a), Some(s)) => Some(CredentialsConfig.StaticKeys(a, s, token))
      case (None, None) if token.isEmpty => None
      case (None, None) =>
        throw KinesisErrors.conflictingOptions(Seq(AwsSessionToken, AwsAccessKey, AwsSecretKey).map(values.name),
          "a session token needs awsAccessKey and awsSecretKey as well")
      case _ =>
        throw KinesisErrors.conflictingOptions(Seq(AwsAccessKey, AwsSecretKey).map(values.name),
          "give both or neither")
    }
  }

  /**
   * The provider class, built here on the driver (and kept for its clients), so that a class
   * that is missing, is no provider or cannot be built fails when the DataFrame is defined.
   */
  private def providerClass(values: OptionValues): Option[CredentialsConfig.ProviderClass] = {
    val parameter = values.get(AwsCredentialsProviderSecret).filter(_.nonEmpty)
    nonEmpty(values, AwsCredentialsProvider) match {
      case None =>
        if (parameter.isDefined) {
          val named = values.name(AwsCredentialsProviderSecret)
          throw KinesisErrors.conflictingOptions(Seq(named, values.name(AwsCredentialsProvider)),
            s"$named is the parameter of awsCredentialsProvider; add awsCredentialsProvider or remove $named")
        }
        None
      case Some(className) =>
        val config = CredentialsConfig.ProviderClass(className, parameter)
        try AwsCredentials.borrow(config)(_ => ())
        catch {
          case e: CredentialsProviderException =>
            throw values.invalid(AwsCredentialsProvider, className,
              s"${CustomCredentials.Allowed}; here ${e.getMessage}")
        }
        Some(config)
    }
  }
}
