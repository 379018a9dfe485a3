// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.connector.kinesis

import java.util

import org.apache.spark.sql.connector.catalog.{Table, TableProvider}
import org.apache.spark.sql.connector.expressions.Transform
import org.apache.spark.sql.sources.DataSourceRegister
import org.apache.spark.sql.types.StructType
import org.apache.spark.sql.util.CaseInsensitiveStringMap

/**
 * A stand-in for awslabs' provider, with its class name and format name, registered only by a
 * test that puts a service file for it on a class loader of its own (as awslabs' jar would be).
 */
final class KinesisV2TableProvider extends TableProvider with DataSourceRegister {
  override def shortName(): String = "aws-kinesis"

  override def inferSchema(options: CaseInsensitiveStringMap): StructType =
    throw new IllegalStateException(KinesisV2TableProvider.Picked)

  override def getTable(schema: StructType, partitioning: Array[Transform],
      properties: util.Map[String, String]): Table = throw new IllegalStateException(KinesisV2TableProvider.Picked)
}

object KinesisV2TableProvider {
  val Picked = "the stand-in for awslabs' provider was picked"
}
