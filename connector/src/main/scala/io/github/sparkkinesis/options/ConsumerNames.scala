// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.errors.KinesisErrors

/** The rules Kinesis puts on consumer names, checked before any call so the error is clear. */
object ConsumerNames {
  val MaxLength = 128
  private val Allowed = "[a-zA-Z0-9_.-]+".r

  /** Returns `name` when Kinesis accepts it as a consumer name; throws an IllegalArgumentException if not. */
  def validate(name: String): String = {
    if (name == null || name.isEmpty) throw KinesisErrors.efoConsumerNameInvalid(String.valueOf(name), "it is empty")
    if (name.length > MaxLength) {
      throw KinesisErrors.efoConsumerNameInvalid(name, s"it has ${name.length} characters, more than $MaxLength")
    }
    if (!Allowed.pattern.matcher(name).matches()) {
      val bad = name.filterNot(c => c.isLetterOrDigit && c < 128 || c == '_' || c == '.' || c == '-').distinct
      throw KinesisErrors.efoConsumerNameInvalid(name, s"it contains ${bad.map(c => s"'$c'").mkString(", ")}")
    }
    name
  }
}
