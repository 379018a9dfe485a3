// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.SparkSessionExtensions

/**
 * The schema registry SQL functions as a session extension of their own:
 * `spark.sql.extensions=io.github.sparkkinesis.schemaregistry.SchemaRegistryExtensions`.
 */
class SchemaRegistryExtensions extends (SparkSessionExtensions => Unit) {
  override def apply(extensions: SparkSessionExtensions): Unit = SchemaRegistryFunctions.inject(extensions)
}
