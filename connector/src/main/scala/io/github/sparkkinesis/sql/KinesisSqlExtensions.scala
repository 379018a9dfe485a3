// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sql

import org.apache.spark.sql.SparkSessionExtensions

import io.github.sparkkinesis.schemaregistry.SchemaRegistryFunctions

/**
 * The connector's SQL: the `read_kinesis` table-valued function and the schema registry
 * functions (`from_gsr_avro`, `from_gsr_json`, `from_gsr_protobuf` and their `to_gsr_*`). A session gets it from
 * `spark.sql.extensions=io.github.sparkkinesis.sql.KinesisSqlExtensions` (Python's
 * `pyspark_kinesis.configure()` sets it), which Spark reads when the session is created.
 */
class KinesisSqlExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = {
    extensions.injectTableFunction(ReadKinesis.description)
    extensions.injectResolutionRule(_ => ResolveReadKinesis)
    SchemaRegistryFunctions.inject(extensions)
  }
}
