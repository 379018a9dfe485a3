// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import java.util.regex.Pattern

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.sql.internal.SQLConf

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
  private val StringPattern = SQLConf.SQL_STRING_REDACTION_PATTERN.key

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

  /**
   * A secret written as a literal in SQL (`from_gsr_avro(data, map('awsSecretKey', '...'))`,
   * `read_kinesis(awsSecretKey => '...')`) is printed in the parsed plan, which no option pattern
   * masks: only `spark.sql.redaction.string.regex` does. That pattern is widened by the secret
   * options' names followed by whatever value comes after them (never by a value: the pattern
   * itself is shown where the session's settings are).
   */
  def maskLiterals(optionNames: Iterable[String]): Unit = {
    val secrets = optionNames.filter(KinesisOptions.isSecret).toSeq.distinct.sorted
    if (secrets.nonEmpty) {
      val conf = SQLConf.get
      val pattern = literalPattern(secrets)
      val current = conf.stringRedactionPattern.map(_.regex)
      if (!current.exists(_.contains(pattern))) {
        try conf.setConfString(StringPattern, current.map(_ + "|").getOrElse("") + pattern)
        catch {
          case NonFatal(e) =>
            logWarning(s"The values of option(s) ${secrets.mkString(", ")} written in SQL will show in query " +
              s"plans: $StringPattern could not be widened (${e.getMessage}). Use the default credential chain or " +
              "roleArn instead.")
        }
      }
    }
  }

  /** A secret option's name, then `,` (a map's next entry) or `=>` (a named argument), then its value. */
  private[sparkkinesis] def literalPattern(secrets: Seq[String]): String =
    s"(?i)\\b(${secrets.map(Pattern.quote).mkString("|")})\\b\\s*(,|=>)\\s*[^,)\\s]+"

  /** The secret options among `optionNames` whose values Spark's current patterns would print. */
  def unmasked(conf: SQLConf, optionNames: Iterable[String]): Seq[String] = {
    val secrets = optionNames.filter(KinesisOptions.isSecret).toSeq.distinct.sorted
    val redacted = conf.redactOptions(secrets.map(_ -> "value").toMap)
    secrets.filter(name => redacted.get(name).contains("value"))
  }
}
