// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.client.ConnectionConfig
import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The `consumerARN` option: enhanced fan-out consumers registered elsewhere, one per stream read
 * (`arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000`). The query
 * reads with them as they are: it never registers nor deregisters them, so the options that name,
 * prefix or deregister the query's own consumers are refused beside it.
 */
private[options] object ConsumerArns {
  import KinesisOptions._

  private val Pattern = ("(arn:aws(?:-[a-z]+)*:kinesis:([a-z0-9-]+):[0-9]{12}:stream/([a-zA-Z0-9_.-]{1,128}))" +
    "/consumer/[a-zA-Z0-9_.-]{1,128}:[0-9]+").r
  private val Allowed = "enhanced fan-out consumer ARNs such as " +
    "arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000, one per stream read, " +
    "separated by commas"

  /** Stream name -> consumer ARN; empty when consumerARN is not given. */
  def parse(values: OptionValues, streams: Seq[String], connection: ConnectionConfig): Map[String, String] =
    values.get(ConsumerARN).map(_.trim).fold(Map.empty[String, String]) { text =>
      Seq(ConsumerName, ConsumerNamePrefix).filter(values.isSet).foreach { spec =>
        throw KinesisErrors.conflictingOptions(Seq(values.name(spec), values.name(ConsumerARN)),
          s"a consumer given by ARN is read with as it is, so ${values.name(spec)} does not apply: remove it")
      }
      if (values.isSet(RequireConsumerDeregistration) && values.boolean(RequireConsumerDeregistration)) {
        throw KinesisErrors.conflictingOptions(
          Seq(values.name(RequireConsumerDeregistration), values.name(ConsumerARN)),
          "a consumer given by ARN is never deregistered by the query (it was registered elsewhere): remove " +
            s"${values.name(RequireConsumerDeregistration)}, or deregister it with AWSKinesisConsumerManager")
      }
      if (text.isEmpty) throw values.invalid(ConsumerARN, text, Allowed)
      val byStream = text.split(",", -1).map(_.trim).toSeq.map {
        case arn @ Pattern(streamArn, region, stream) =>
          if (!streams.contains(stream)) {
            throw values.invalid(ConsumerARN, text,
              s"$Allowed; '$arn' is a consumer of stream '$stream', which is not read here (streams read: " +
                s"${streams.mkString(", ")})")
          }
          connection.streamArn(stream).filter(_ != streamArn).foreach { named =>
            throw values.invalid(ConsumerARN, text, s"$Allowed; '$arn' is a consumer of $streamArn, not of $named")
          }
          if (region != connection.region) {
            throw values.invalid(ConsumerARN, text,
              s"$Allowed; '$arn' is a consumer in region $region, but the streams are read in ${connection.region}")
          }
          stream -> arn
        case bad => throw values.invalid(ConsumerARN, text, s"$Allowed ('$bad' is not one)")
      }
      val twice = byStream.groupBy(_._1).collect { case (s, arns) if arns.size > 1 => s }
      if (twice.nonEmpty) throw values.invalid(ConsumerARN, text, s"$Allowed (two for stream ${twice.head})")
      streams.filterNot(byStream.map(_._1).contains).headOption.foreach { missing =>
        throw values.invalid(ConsumerARN, text, s"$Allowed (none for stream '$missing')")
      }
      byStream.toMap
    }
}
