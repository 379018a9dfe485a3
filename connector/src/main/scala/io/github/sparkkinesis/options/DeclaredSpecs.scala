// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import scala.collection.mutable

import io.github.sparkkinesis.options.KinesisOptions.OptionSpec

/**
 * Collects the registry's options as they are declared, so [[KinesisOptions.all]] is built from
 * the specs themselves: declaring an option is the only step of adding one. The spec traits
 * are initialized in the order [[KinesisOptions]] extends them, which with the order within
 * each trait is the order of the options page's tables.
 */
private[options] trait DeclaredSpecs {
  private val declared = mutable.ArrayBuffer.empty[OptionSpec]

  /** Adds `spec` to the registry, after those declared before it. */
  protected def declare(spec: OptionSpec): OptionSpec = {
    declared += spec
    spec
  }

  protected def declaredSpecs: Seq[OptionSpec] = declared.toList
}
