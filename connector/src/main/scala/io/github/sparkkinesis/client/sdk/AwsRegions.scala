// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import scala.jdk.CollectionConverters._
import scala.util.Try

import software.amazon.awssdk.regions.{PartitionMetadata, Region}
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * Which region names exist. The AWS SDK's region list is the authority, but AWS opens new
 * regions after an SDK release; so a name the list does not know is still accepted when it
 * is built like the regions of its partition: it matches the partition's own region pattern
 * (from the SDK's partition metadata, e.g. `^(us|eu|ap|sa|ca|me|af|il|mx)\-\w+\-\d+$`) and
 * its direction part (`southeast`, `gov-west`, ...) is one a known region already uses. That
 * admits `ap-southeast-9` and rejects typos such as `us-esat-1`, `eu-west` or `useast1`.
 */
private[sparkkinesis] object AwsRegions {
  private val Partitions = Seq("aws", "aws-cn", "aws-us-gov", "aws-iso", "aws-iso-b", "aws-iso-e",
    "aws-iso-f", "aws-eusc")

  /** Regions Kinesis can live in: every known region but the global pseudo-regions. */
  lazy val known: Seq[String] =
    Region.regions().asScala.filterNot(_.isGlobalRegion).map(_.id()).filterNot(_.contains("global")).sorted.toSeq

  private val Shape = "([a-z]{2,})-([a-z]+(?:-[a-z]+)*)-([0-9]+)".r

  private lazy val knownDirections: Set[String] = known.collect { case Shape(_, direction, _) => direction }.toSet

  private lazy val partitionPatterns: Seq[scala.util.matching.Regex] =
    Partitions.flatMap(p => Try(PartitionMetadata.of(p).regionRegex()).toOption).filter(_ != null).map(_.r)

  def exists(region: String): Boolean = known.contains(region) || (region match {
    case Shape(_, direction, _) =>
      knownDirections.contains(direction) && partitionPatterns.exists(_.pattern.matcher(region).matches())
    case _ => false
  })

  /** The region of the environment (AWS_REGION, the AWS profile, the instance), as the SDK resolves it. */
  def fromEnvironment(): String =
    try new DefaultAwsRegionProviderChain().getRegion.id()
    catch { case e: Exception => throw KinesisErrors.regionUnresolved(e) }
}
