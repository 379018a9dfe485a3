// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The `streamARN` option: the streams to read named by ARN
 * (`arn:aws:kinesis:us-east-1:123456789012:stream/orders`), one or a comma-separated list,
 * instead of `streamName`. The region comes from the ARNs, so they must share one; another
 * account's stream is reached by assuming a role of that account (`roleArn`).
 */
private[sparkkinesis] object StreamArns {
  import KinesisOptions._

  /** One stream ARN: `arn` as given, and the parts of it the connector uses. */
  final case class StreamArn(arn: String, region: String, account: String, name: String)

  private val Pattern = "arn:aws(?:-[a-z]+)*:kinesis:([a-z0-9-]+):([0-9]{12}):stream/([a-zA-Z0-9_.-]{1,128})".r
  private val Allowed = "stream ARNs such as arn:aws:kinesis:us-east-1:123456789012:stream/orders, " +
    "separated by commas"

  /** The streams named by `streamARN`, if it is given; None when `streamName` names them. */
  def parse(values: OptionValues): Option[Seq[StreamArn]] = values.get(StreamARN).map { text =>
    val arns = text.split(",", -1).map(_.trim).toSeq.map {
      case arn @ Pattern(region, account, name) => StreamArn(arn, region, account, name)
      case bad => throw values.invalid(StreamARN, text, s"$Allowed ('$bad' is not one)")
    }
    if (arns.map(_.name).distinct.size != arns.size) throw values.invalid(StreamARN, text, "each stream named once")
    val regions = arns.map(_.region).distinct
    if (regions.size > 1) {
      throw values.invalid(StreamARN, text,
        s"streams of one region (these are in ${regions.mkString(", ")}); " +
          "read the streams of each region in a query of their own")
    }
    if (values.isSet(StreamName)) {
      throw KinesisErrors.conflictingOptions(Seq(values.name(StreamName), values.name(StreamARN)),
        "name the streams one way: by name with streamName, or by ARN with streamARN")
    }
    values.get(Region).map(_.trim).filter(r => r.nonEmpty && r != regions.head).foreach { r =>
      throw KinesisErrors.conflictingOptions(Seq(values.name(Region), values.name(StreamARN)),
        s"region '$r' differs from the region of the stream ARNs (${regions.head}); remove region")
    }
    arns
  }

  /** What calls to Kinesis name each stream by: stream name -> ARN (`ConnectionConfig.streamArns`). */
  def byName(arns: Option[Seq[StreamArn]]): Map[String, String] =
    arns.fold(Map.empty[String, String])(_.map(a => a.name -> a.arn).toMap)
}
