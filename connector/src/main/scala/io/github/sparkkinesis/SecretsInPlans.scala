// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.util.regex.Pattern

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf

import io.github.sparkkinesis.options.KinesisOptions

/**
 * Spark itself prints a data source's options in query plans (`explain`, the SQL tab of the UI,
 * the event log), masking those whose names match `spark.sql.redaction.options.regex` or
 * `spark.redaction.regex`. The defaults match this connector's own names of its secret options,
 * but not every other connector's name for them (awslabs' `kinesis.credentialProviderParam`), nor
 * anything once a user narrows the patterns. So when a read or write is defined with a secret
 * option those patterns miss, the session's `spark.sql.redaction.options.regex` is widened by
 * exactly that option's name (masking more never shows anything), and said so once.
 */
private[sparkkinesis] object SecretsInPlans extends Logging {
  private val OptionsPattern = SQLConf.SQL_OPTIONS_REDACTION_PATTERN.key

  /** Masks the secret options among `optionNames` that Spark would print; the names it widened for. */
  def mask(optionNames: Iterable[String]): Seq[String] = {
    val conf = SQLConf.get
    val shown = unmasked(conf, optionNames)
    if (shown.nonEmpty) {
      try {
        val names = shown.map(name => s"^${Pattern.quote(name)}$$").mkString("|")
        conf.setConfString(OptionsPattern, s"${conf.getConf(SQLConf.SQL_OPTIONS_REDACTION_PATTERN).regex}|(?i)$names")
        logInfo(s"Spark's redaction patterns do not match option(s) ${shown.mkString(", ")}, whose values are " +
          s"secret: $OptionsPattern of this session now matches them too, so that query plans mask them.")
      } catch {
        case NonFatal(e) =>
          logWarning(s"The values of option(s) ${shown.mkString(", ")} will show in query plans (explain, the " +
            s"Spark UI): Spark's redaction patterns do not match them and $OptionsPattern could not be widened " +
            s"(${e.getMessage}). Add their names to $OptionsPattern, or use the default credential chain or " +
            "roleArn instead.")
      }
    }
    shown
  }

  /** The secret options among `optionNames` whose values Spark's current patterns would print. */
  def unmasked(conf: SQLConf, optionNames: Iterable[String]): Seq[String] = {
    val secrets = optionNames.filter(KinesisOptions.isSecret).toSeq.distinct.sorted
    val redacted = conf.redactOptions(secrets.map(_ -> "value").toMap)
    secrets.filter(name => redacted.get(name).contains("value"))
  }
}
