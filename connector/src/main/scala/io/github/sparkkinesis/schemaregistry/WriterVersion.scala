// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import java.util.UUID

import io.github.sparkkinesis.client.sdk.{GlueRegistryApi, SchemaNotFoundException, SchemaRegistryException}

/** The schema version the encoders (`to_gsr_avro`, `to_gsr_json`) write records under, chosen at analysis. */
object WriterVersion {
  import RegistryOptions._

  /**
   * The version the options name (its id and definition), or with `schemaDefinition`, the
   * version of `schemaName` with that definition, registered first when `autoRegistration` is
   * true (the schema created first, of `dataFormat`, if it does not exist).
   */
  def apply(opts: Given, dataFormat: String, function: String): (UUID, String) = opts.get(SchemaDefinition) match {
    case None =>
      val version = namedVersion(opts, "to choose the schema records are written with", dataFormat, function)
      (version.id, version.definition)
    case Some(definition) =>
      val name = opts.schemaName(s"with '$SchemaDefinition'")
      val api = new GlueRegistryApi(opts.connection)
      val autoRegister = opts.boolean(AutoRegistration, default = false)
      val id = api.versionIdOf(opts.registry, name, definition).getOrElse {
        if (!autoRegister) throw new SchemaRegistryException(
          s"${api.where} has no version of schema '$name' (registry '${opts.registry}') with this definition; " +
            s"register it, or set option '$AutoRegistration' to true")
        val exists =
          try { api.schemaVersion(opts.registry, name, None); true }
          catch { case _: SchemaNotFoundException => false }
        if (exists) api.register(opts.registry, name, definition)
        else api.createSchema(opts.registry, name, dataFormat, opts.oneOf(Compatibility, Compatibilities, "BACKWARD"),
          definition)
      }
      (id, definition)
  }
}
