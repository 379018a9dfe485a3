// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.tools

import java.io.FileNotFoundException
import java.nio.charset.StandardCharsets

import scala.util.Try
import scala.util.control.NonFatal

import com.fasterxml.jackson.databind.ObjectMapper
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.{FileStatus, FileSystem, Path}

/**
 * One batch of a query's offset log: when Spark planned it, and each source's offset JSON (None
 * where a source had none) by the source's id, the name of its folder under `sources/`: its
 * position among the query's sources, or the name a query gave it (log version v2).
 */
final case class LoggedBatch(id: Long, plannedAtMs: Long, sources: Seq[(String, Option[String])], file: String) {
  def offsets: Seq[String] = sources.flatMap(_._2)
}

/**
 * A Spark streaming checkpoint as its logs describe it. `offsets/N` is written when batch N is
 * planned and `commits/N` once its output is written: only a committed batch is progress that
 * may be carried over. Read through Hadoop's FileSystem, so a checkpoint on HDFS or S3 reads as
 * one on local disk does.
 */
final class SparkCheckpoint(val location: String, hadoopConf: Configuration = new Configuration()) {
  private val root = new Path(location)
  private val fs: FileSystem =
    try root.getFileSystem(hadoopConf)
    catch {
      case NonFatal(e) =>
        throw new ToolError(
          s"cannot open the checkpoint $location: ${e.getMessage}; copy it to local disk, or " +
            "run this tool with spark-submit where the query ran, with its file systems", cause = e)
    }

  if (!fs.exists(root)) {
    throw new ToolError(s"the checkpoint $location does not exist: give the old query's checkpointLocation")
  }
  if (!SparkCheckpoint.isFolder(fs, new Path(root, "offsets"))) {
    throw new ToolError(s"$location is not a Spark streaming checkpoint: it has no offsets folder " +
      "(give the old query's checkpointLocation, the folder that holds offsets/ and commits/)")
  }

  /** The last batch whose output was committed. */
  def lastCommitted: Long = batchIds("commits").lastOption.getOrElse {
    throw new ToolError(s"no batch of the query with checkpoint $location was committed (its commits folder " +
      "is empty or missing): it has no progress to carry over, so start the new query from an initialPosition")
  }

  /** The last batch planned, committed or not. */
  def lastPlanned: Option[Long] = batchIds("offsets").lastOption

  /** The metadata folder Spark gives the source with this id (see [[LoggedBatch]]). */
  def sourcePath(source: String): Path = new Path(root, s"sources/$source")

  def fileSystem: FileSystem = fs

  def batch(id: Long): LoggedBatch = {
    val file = new Path(root, s"offsets/$id")
    val lines = SparkCheckpoint.readText(fs, file).getOrElse {
      throw new ToolError(s"$file is missing although batch $id was committed: the checkpoint is damaged")
    }.split("\n").toIndexedSeq
    val version = lines.headOption.map(_.trim).getOrElse("")
    if (version != "v1" && version != "v2") {
      throw new ToolError(s"$file is in offset log version ${Some(version).filter(_.nonEmpty).getOrElse("(none)")}" +
        "; this tool reads versions v1 and v2")
    }
    if (lines.size < 2) throw new ToolError(s"$file has no batch metadata line: the checkpoint is damaged")
    val planned = Try(SparkCheckpoint.mapper.readTree(lines(1))).toOption.flatMap(Option(_))
      .flatMap(m => Option(m.get("batchTimestampMs")))
      .filter(_.canConvertToLong).map(_.asLong)
      .getOrElse(throw new ToolError(s"$file has no batchTimestampMs in its metadata line: the checkpoint is damaged"))
    // v1: one line per source, in the query's order; v2: "<source id>:<offset>" lines.
    val offsetLines = lines.drop(2).map(_.trim).filter(_.nonEmpty)
    val sources = if (version == "v1") offsetLines.zipWithIndex.map { case (l, i) => i.toString -> l }
    else offsetLines.map { l =>
      val colon = l.indexOf(':')
      if (colon < 0) throw new ToolError(s"$file has a line without its source id: the checkpoint is damaged")
      l.substring(0, colon) -> l.substring(colon + 1)
    }
    LoggedBatch(id, planned, sources.map { case (source, l) => source -> Some(l).filter(_ != "-") }, file.toString)
  }

  /** The batch ids of a log folder, in order; Spark's temporary and checksum files have other names. */
  private def batchIds(log: String): Seq[Long] = {
    val folder = new Path(root, log)
    val names =
      try fs.listStatus(folder).toSeq.filter(_.isFile).map(_.getPath.getName)
      catch { case _: FileNotFoundException => Nil }
    names.filter(n => n.nonEmpty && n.length < 19 && n.forall(_.isDigit)).map(_.toLong).sorted
  }
}

object SparkCheckpoint {
  private val mapper = new ObjectMapper()

  /** A file's text, or None when there is no such file. */
  def readText(fs: FileSystem, file: Path): Option[String] =
    if (!status(fs, file).exists(_.isFile)) None
    else {
      val in = fs.open(file)
      try Some(new String(in.readAllBytes(), StandardCharsets.UTF_8))
      finally in.close()
    }

  def isFolder(fs: FileSystem, path: Path): Boolean = status(fs, path).exists(_.isDirectory)

  private def status(fs: FileSystem, path: Path): Option[FileStatus] =
    try Some(fs.getFileStatus(path))
    catch { case _: FileNotFoundException => None }
}
