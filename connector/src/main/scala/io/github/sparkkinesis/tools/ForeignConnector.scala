// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

/**
 * A connector whose progress can be carried over. Both keep the same two records of it: the
 * offset log names where each shard's reading *starts* in a batch, and each task writes where it
 * *stopped* to a file per batch and shard, `<metadata path>/<folder>/<batch id>/<shard id>`, whose
 * metadata path is the source's folder of the checkpoint (`sources/<n>`) unless an option moved it.
 */
sealed abstract class ForeignConnector(
    val name: String,
    val project: String,
    val folder: String,
    val metadataPathOption: String)

object ForeignConnector {
  case object Qubole extends ForeignConnector("qubole", "qubole/kinesis-sql", "shard-commit",
      "kinesis.executor.metadata.path")

  case object Awslabs extends ForeignConnector("awslabs", "awslabs/spark-sql-kinesis-connector", "shard-source",
      "kinesis.metadataPath")

  val all: Seq[ForeignConnector] = Seq(Qubole, Awslabs)

  def named(name: String): Option[ForeignConnector] = all.find(_.name.equalsIgnoreCase(name.trim))
}
