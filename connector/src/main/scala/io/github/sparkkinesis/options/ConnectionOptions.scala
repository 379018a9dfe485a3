package io.github.sparkkinesis.options

import java.net.URI

import scala.util.Try

import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The options that say how to reach AWS (region, endpoint, credentials), shared by the
 * source, the sink and the consumer manager so all three connect the same way.
 */
private[sparkkinesis] object ConnectionOptions {
  import KinesisOptions._

  private val RegionPattern = "[a-z]{2,}(-[a-z0-9]+)+-[0-9]+".r

  def parse(values: OptionValues): ConnectionConfig = {
    val endpoint = values.get(Endpoint).map(_.trim).filter(_.nonEmpty).map { text =>
      val uri = Try(new URI(text)).toOption
      val ok = uri.exists(u => Option(u.getScheme).exists(s => s == "http" || s == "https") &&
        Option(u.getHost).nonEmpty)
      if (!ok) throw values.invalid(Endpoint, text, "a URL such as https://kinesis.us-east-1.amazonaws.com")
      text
    }
    val region = values.get(Region).map(_.trim).filter(_.nonEmpty) match {
      case Some(r) if RegionPattern.matches(r) => r
      case Some(r) => throw values.invalid(Region, r, "an AWS region name such as us-east-1")
      case None =>
        try new DefaultAwsRegionProviderChain().getRegion.id()
        catch { case e: Exception => throw KinesisErrors.regionUnresolved(e) }
    }
    val accessKey = values.get(AwsAccessKey).filter(_.nonEmpty)
    val secretKey = values.get(AwsSecretKey).filter(_.nonEmpty)
    val token = values.get(AwsSessionToken).filter(_.nonEmpty)
    val credentials = (accessKey, secretKey) match {
      case (Some(a), Some(s)) => CredentialsConfig.StaticKeys(a, s, token)
      case (None, None) if token.isEmpty => CredentialsConfig.DefaultChain
      case (None, None) =>
        throw KinesisErrors.conflictingOptions(Seq(AwsSessionToken.name, AwsAccessKey.name, AwsSecretKey.name),
          "a session token needs awsAccessKey and awsSecretKey as well")
      case _ =>
        throw KinesisErrors.conflictingOptions(Seq(AwsAccessKey.name, AwsSecretKey.name),
          "give both or neither")
    }
    ConnectionConfig(region, endpoint, credentials)
  }
}
