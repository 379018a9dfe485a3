// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.options

import org.scalatest.funsuite.AnyFunSuite

/**
 * The option tables of docs/options.md and the Python package's `_registry.json` are what the registry
 * gives: a new or changed option that was not regenerated fails here, showing the difference.
 */
class OptionsReferenceSuite extends AnyFunSuite {
  import OptionsReference._

  private def assertSame(path: String, expected: String): Unit = {
    val actual = read(path)
    if (actual != expected) {
      fail(s"$path differs from the option registry; run `make docs-options`.\n" + diff(actual, expected))
    }
  }

  test("docs/options.md's option tables are generated from the registry") {
    assertSame(OptionsDocPath, optionsDocWith(read(OptionsDocPath)))
  }

  test("python/pyspark_kinesis/_registry.json is generated from the registry") {
    assertSame(JsonPath, registryJson)
  }

  test("every option's bounds are shown in the options page's words and the errors' words") {
    KinesisOptions.all.foreach { spec =>
      assert(allowedShort(spec.kind).nonEmpty, spec.name)
      spec.kind match {
        case OptionKind.Text | OptionKind.NameList | OptionKind.Position => assert(spec.kind.allowed.isEmpty)
        case _ => assert(spec.kind.allowed.nonEmpty, spec.name)
      }
    }
    assert(OptionKind.Size.shown(5L * 1024 * 1024) == "5mb")
    assert(OptionKind.Size.shown(1536) == "1536b")
  }

  /** The lines that differ, between the first and the last difference, as - (committed) and + (expected). */
  private def diff(actual: String, expected: String): String = {
    val (a, e) = (actual.split("\n", -1).toSeq, expected.split("\n", -1).toSeq)
    val top = a.zip(e).takeWhile { case (x, y) => x == y }.size
    val bottom = a.reverse.zip(e.reverse).takeWhile { case (x, y) => x == y }.size
    val removed = a.slice(top, math.max(top, a.size - bottom)).map("- " + _)
    val added = e.slice(top, math.max(top, e.size - bottom)).map("+ " + _)
    s"at line ${top + 1}:\n" + (removed ++ added).take(60).mkString("\n")
  }
}
