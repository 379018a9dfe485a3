// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.source

import java.nio.charset.StandardCharsets

import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

import io.github.sparkkinesis.offsets.{KinesisOffsetJson, KinesisSourceOffset}

/**
 * Keeps the query's first offset in its checkpoint. Spark asks for the initial offset again
 * after a restart that happens before the first batch commits; "latest" must then mean the
 * same instant as the first time, or records would be skipped.
 */
final class InitialOffsetStore(metadataPath: String, hadoopConf: Configuration) {
  private val file = new Path(metadataPath, "kinesis-initial-offset.json")

  def getOrCreate(compute: => KinesisSourceOffset): KinesisSourceOffset = {
    val fs = file.getFileSystem(hadoopConf)
    if (fs.exists(file)) {
      val in = fs.open(file)
      try CheckpointOffsets.located(s"checkpoint file $file") {
          KinesisOffsetJson.read(new String(in.readAllBytes(), StandardCharsets.UTF_8))
        }
      finally in.close()
    } else {
      val offset = compute
      // Write aside, then rename: a crash never leaves a half-written file behind.
      val temp = new Path(metadataPath, s".kinesis-initial-offset.${System.nanoTime()}.tmp")
      val out = fs.create(temp, true)
      try out.write(offset.json().getBytes(StandardCharsets.UTF_8))
      finally out.close()
      if (!fs.rename(temp, file)) {
        fs.delete(temp, false)
        if (!fs.exists(file)) throw new java.io.IOException(s"could not write $file")
        return getOrCreate(compute)
      }
      offset
    }
  }
}
