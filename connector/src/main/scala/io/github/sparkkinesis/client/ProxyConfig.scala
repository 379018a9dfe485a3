// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client

import java.util.Locale
import java.util.regex.Pattern

/**
 * The HTTP proxy every client of a connection goes through (`proxyHost`, `proxyPort`,
 * `proxyUsername`, `proxyPassword`, `nonProxyHosts`). The proxy is spoken to in plain HTTP:
 * requests to an http endpoint are forwarded by it, https endpoints (and HTTP/2) are reached
 * through a CONNECT tunnel. `toString` never shows the password (ARCHITECTURE.md invariant 7).
 *
 * @param nonProxyHosts host patterns reached directly, as the JVM's `http.nonProxyHosts` writes
 *                      them: `*` stands for any characters (`*.internal`, `10.*`)
 */
final case class ProxyConfig(
    host: String,
    port: Int,
    username: Option[String] = None,
    password: Option[String] = None,
    nonProxyHosts: Seq[String] = Nil) {

  /** The patterns as the SDK's clients match host names against them: regular expressions, in lower case. */
  def nonProxyHostRegexes: Set[String] =
    nonProxyHosts.map(_.toLowerCase(Locale.ROOT).split("\\*", -1).map(Pattern.quote).mkString(".*")).toSet

  override def toString: String = {
    val user = username.fold("")(u => s", username=$u")
    val secret = if (password.isDefined) ", password=<redacted>" else ""
    val direct = if (nonProxyHosts.isEmpty) "" else nonProxyHosts.mkString(", nonProxyHosts=[", "|", "]")
    s"ProxyConfig($host:$port$user$secret$direct)"
  }
}
