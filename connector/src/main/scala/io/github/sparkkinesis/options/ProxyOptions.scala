// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.client.ProxyConfig
import io.github.sparkkinesis.errors.KinesisErrors

/** The HTTP proxy options (`proxyHost`, `proxyPort`, `proxyUsername`, `proxyPassword`, `nonProxyHosts`). */
private[options] object ProxyOptions {
  import KinesisOptions._
  import ConnectionOptions.nonEmpty

  // A host name, an IPv4 address, or an IPv6 address in brackets.
  private val HostPattern = """[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]""".r
  // A host pattern of nonProxyHosts: a host name or address with `*` wildcards.
  private val HostGlobPattern = """[A-Za-z0-9.*:\[\]-]{1,255}""".r

  def parse(values: OptionValues): Option[ProxyConfig] = {
    // A bad port is reported as such, even beside a missing proxyHost.
    val port = nonEmpty(values, ProxyPort).map(_ => values.int(ProxyPort))
    nonEmpty(values, ProxyHost) match {
      case None =>
        Seq(ProxyPort, ProxyUsername, ProxyPassword, NonProxyHosts).find(spec => nonEmpty(values, spec).isDefined)
          .foreach { spec =>
            val named = values.name(spec)
            throw KinesisErrors.conflictingOptions(Seq(named, values.name(ProxyHost)),
              s"$named applies only with a proxy; add proxyHost or remove $named")
          }
        None
      case Some(host) =>
        if (!HostPattern.pattern.matcher(host).matches()) {
          throw values.invalid(ProxyHost, host,
            "a host name or IP address such as proxy.example.com or 10.0.0.1, " +
              "without a scheme or a port (the port goes in proxyPort)")
        }
        if (port.isEmpty) {
          throw KinesisErrors.missingOption(values.name(ProxyPort),
            s"'${values.name(ProxyHost)}' needs its port, e.g. 3128")
        }
        val username = nonEmpty(values, ProxyUsername)
        val password = values.get(ProxyPassword).filter(_.nonEmpty)
        if (username.isDefined != password.isDefined) {
          throw KinesisErrors.conflictingOptions(Seq(ProxyUsername, ProxyPassword).map(values.name),
            "the proxy's Basic authentication needs both: give both or neither")
        }
        val direct = nonEmpty(values, NonProxyHosts).toSeq.flatMap(_.split("[|,]").map(_.trim).filter(_.nonEmpty))
        direct.find(h => !HostGlobPattern.pattern.matcher(h).matches()).foreach { bad =>
          throw values.invalid(NonProxyHosts, values.get(NonProxyHosts).get,
            s"host names or addresses separated by '|' or commas, '*' standing for any characters, such as " +
              s"'*.internal|10.*|localhost' ('$bad' is not one)")
        }
        Some(ProxyConfig(host.stripPrefix("[").stripSuffix("]"), port.get, username, password, direct))
    }
  }
}
