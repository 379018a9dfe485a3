// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import org.apache.hadoop.fs.Path

import io.github.sparkkinesis.offsets.{ForeignOffset, ForeignPositionError, ForeignPositions, ShardPosition}

/**
 * Where a query of another connector stopped, per shard, as of its last committed batch.
 * `notes` say what a user should know about how it was found.
 */
final case class ImportedProgress(
    connector: ForeignConnector,
    stream: String,
    batch: Long,
    positions: Map[String, ShardPosition],
    notes: Seq[String])

/**
 * Reads a qubole or awslabs checkpoint. In both, batch N's line of the offset log holds where
 * each shard's reading started, and the files their tasks wrote for batch N where it stopped;
 * positions are those files' where they exist, else the line's (a shard the batch did not read,
 * as one already read to its end). A later batch that was planned but not committed is ignored:
 * Spark reads it again on restart, so none of its records count as delivered.
 */
object ForeignCheckpoint {
  /** A position the tool cannot read fails the tool, with the reason. */
  private def asToolError[T](read: => T): T =
    try read
    catch { case e: ForeignPositionError => throw new ToolError(e.getMessage) }

  def read(
      checkpoint: SparkCheckpoint,
      connector: ForeignConnector,
      stream: Option[String],
      metadataPath: Option[String]): ImportedProgress = {
    val batch = checkpoint.batch(checkpoint.lastCommitted)
    val (source, offset) = chooseSource(checkpoint, batch, connector, stream)
    val base = metadataPath.map(new Path(_)).getOrElse(checkpoint.sourcePath(source))
    val folder = new Path(new Path(base, connector.folder), offset.batchId.toString)
    val fs = checkpoint.fileSystem
    val ends = if (!SparkCheckpoint.isFolder(fs, folder)) Map.empty[String, ShardPosition]
    else fs.listStatus(folder).toSeq.map(_.getPath).filter { p =>
      val name = p.getName
      !name.startsWith(".") && !name.startsWith("_")
    }.map { file =>
      val text = SparkCheckpoint.readText(fs, file).getOrElse("")
      file.getName -> asToolError(ForeignPositions.shardFile(text, file.toString, batch.plannedAtMs))
    }.toMap
    val toRead = offset.starts.filterNot(_._2.isInstanceOf[ShardPosition.ShardEnd]).keySet
    if (ends.isEmpty && toRead.nonEmpty) {
      throw new ToolError(s"$folder does not exist or is empty, but batch ${batch.id} read the shards " +
        s"${toRead.toSeq.sorted.mkString(", ")}: it is where ${connector.name} keeps where each shard's reading " +
        s"stopped. If the old query set ${connector.metadataPathOption}, give that path as --metadata-path" +
        (if (connector == ForeignConnector.Awslabs) " (progress kept in DynamoDB cannot be read by this tool)" else ""))
    }
    val unwritten = toRead.diff(ends.keySet).toSeq.sorted
    val notes = unwritten.map(shard =>
      s"$shard: no file for batch ${batch.id} in $folder; " +
        "it continues from where that batch started reading it")
    ImportedProgress(connector, offset.stream, batch.id, offset.starts ++ ends, notes)
  }

  /** The source of `stream` among the batch's lines, with its id (that of its `sources/<id>` folder). */
  private def chooseSource(
      checkpoint: SparkCheckpoint,
      batch: LoggedBatch,
      connector: ForeignConnector,
      stream: Option[String]): (String, ForeignOffset) = {
    val found = batch.sources.flatMap { case (source, line) =>
      line.flatMap(json =>
        asToolError(
          ForeignPositions.offsetLine(json, s"${batch.file} (source $source)", batch.plannedAtMs)))
        .map(source -> _)
    }
    if (found.isEmpty) {
      val own = batch.offsets.exists(_.contains("\"version\""))
      throw new ToolError(s"${batch.file} holds no offset of the ${connector.name} connector (${connector.project})" +
        (if (own) ": it is a checkpoint of this connector; see it with: offsets show " + checkpoint.location else ""))
    }
    val streams = found.map(_._2.stream)
    stream match {
      case Some(name) => found.find(_._2.stream == name).getOrElse {
          throw new ToolError(s"--stream $name: the checkpoint ${checkpoint.location} is of another stream; its " +
            s"${connector.name} sources read ${streams.map(s => s"'$s'").mkString(", ")}")
        }
      case None if found.size == 1 => found.head
      case None =>
        throw new ToolError(s"the checkpoint ${checkpoint.location} reads several streams " +
            s"(${streams.map(s => s"'$s'").mkString(", ")}): name one with --stream", usage = true)
    }
  }
}
