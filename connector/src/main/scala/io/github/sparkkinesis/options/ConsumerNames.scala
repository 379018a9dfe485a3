// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import io.github.sparkkinesis.errors.KinesisErrors

/**
 * The rules Kinesis puts on consumer names, checked before any call so the error is clear. The
 * Python consumer manager reads the same rules and reasons from `_registry.json`.
 */
object ConsumerNames {
  val MaxLength = 128
  /** The characters allowed, as a character class both Java and Python regexes read alike. */
  val AllowedCharacters = "[a-zA-Z0-9_.-]"
  private val Allowed = s"$AllowedCharacters+".r

  /** Why a name is refused, with `<length>`, `<max>` and `<characters>` filled in. */
  val Reasons: Map[String, String] = Map(
    "empty" -> "it is empty",
    "tooLong" -> "it has <length> characters, more than <max>",
    "badCharacters" -> "it contains <characters>")

  /** Returns `name` when Kinesis accepts it as a consumer name; throws an IllegalArgumentException if not. */
  def validate(name: String): String = {
    def refuse(reason: String, parameters: (String, String)*) = throw KinesisErrors.efoConsumerNameInvalid(
      String.valueOf(name), parameters.foldLeft(Reasons(reason)) { case (text, (k, v)) => text.replace(s"<$k>", v) })
    if (name == null || name.isEmpty) refuse("empty")
    if (name.length > MaxLength) refuse("tooLong", "length" -> name.length.toString, "max" -> MaxLength.toString)
    if (!Allowed.pattern.matcher(name).matches()) {
      val bad = name.filterNot(c => c.isLetterOrDigit && c < 128 || c == '_' || c == '.' || c == '-').distinct
      refuse("badCharacters", "characters" -> bad.map(c => s"'$c'").mkString(", "))
    }
    name
  }
}
