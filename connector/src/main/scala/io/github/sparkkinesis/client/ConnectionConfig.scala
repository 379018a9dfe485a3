package io.github.sparkkinesis.client

/** How the connector reaches AWS. Sent to executors, so every field is serializable. */
final case class ConnectionConfig(
    region: String,
    endpoint: Option[String],
    credentials: CredentialsConfig) {

  /** Where requests go, for error messages (never includes credentials). */
  def where: String = endpoint.map(e => s"endpoint $e, region $region").getOrElse(s"region $region")
}

/** Where credentials come from. The static variant never shows its secrets in `toString`. */
sealed trait CredentialsConfig extends Serializable

object CredentialsConfig {
  /** The AWS SDK's default chain: environment, system properties, profiles, container, instance. */
  case object DefaultChain extends CredentialsConfig

  final case class StaticKeys(accessKeyId: String, secretKey: String, sessionToken: Option[String])
    extends CredentialsConfig {
    override def toString: String = "StaticKeys(<redacted>)"
  }
}
