// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import java.io.{ByteArrayInputStream, ByteArrayOutputStream, DataInputStream, DataOutputStream}

import io.github.sparkkinesis.client.KplCounts
import io.github.sparkkinesis.efo.SubscriptionCounts
import io.github.sparkkinesis.offsets.{ShardKey, ShardPosition}

/**
 * [[PrefetchResult]]s as bytes for the driver endpoint, field by field. A task reports every
 * block it stores, so this runs often: Java serialization cost more per message than the rest
 * of a report, and kept the JIT compiling its machinery.
 */
object PrefetchResultCodec {
  private val Version = 2

  def encode(result: PrefetchResult): Array[Byte] = {
    val bytes = new ByteArrayOutputStream(256)
    val out = new DataOutputStream(bytes)
    out.writeByte(Version)
    out.writeInt(result.blocks.size)
    result.blocks.foreach { b =>
      shard(out, b.shard); position(out, b.from); position(out, b.to)
      optional(out, b.blockName)(out.writeUTF); optional(out, b.location)(out.writeUTF)
      out.writeInt(b.records); out.writeLong(b.bytes)
      out.writeLong(b.firstArrivalMillis); out.writeLong(b.lastArrivalMillis)
    }
    out.writeInt(result.status.size)
    result.status.foreach { s =>
      shard(out, s.shard); position(out, s.position); out.writeLong(s.millisBehindLatest)
      optional(out, s.caughtUpAtMillis)(out.writeLong(_)); out.writeInt(s.throttled); out.writeUTF(s.location)
    }
    out.writeUTF(result.location)
    optional(out, result.subscriptions) { c =>
      out.writeLong(c.liveSubscriptions); out.writeLong(c.resubscriptions); out.writeLong(c.report)
    }
    out.writeLong(result.kpl.corruptAggregates); out.writeLong(result.kpl.outOfRangeRecords)
    optional(out, result.kpl.firstCorruption)(out.writeUTF); out.writeLong(result.kpl.droppedRecords)
    out.writeInt(result.dataLossEvents)
    out.flush()
    bytes.toByteArray
  }

  def decode(bytes: Array[Byte]): PrefetchResult = {
    val in = new DataInputStream(new ByteArrayInputStream(bytes))
    val version = in.readUnsignedByte()
    require(version == Version, s"a prefetch report of format $version, not $Version (mixed connector versions?)")
    val blocks = Vector.fill(in.readInt()) {
      PrefetchedBlock(shard(in), position(in), position(in), optional(in)(in.readUTF()), optional(in)(in.readUTF()),
        in.readInt(), in.readLong(), in.readLong(), in.readLong())
    }
    val status = Vector.fill(in.readInt()) {
      ShardFetchStatus(shard(in), position(in), in.readLong(), optional(in)(in.readLong()), in.readInt(), in.readUTF())
    }
    val location = in.readUTF()
    val subscriptions = optional(in)(SubscriptionCounts(in.readLong(), in.readLong(), in.readLong()))
    val kpl = KplCounts(in.readLong(), in.readLong(), optional(in)(in.readUTF()), in.readLong())
    PrefetchResult(blocks, status, location, subscriptions, kpl, in.readInt())
  }

  private def shard(out: DataOutputStream, key: ShardKey): Unit = {
    out.writeUTF(key.stream); out.writeUTF(key.shardId)
  }
  private def shard(in: DataInputStream): ShardKey = ShardKey(in.readUTF(), in.readUTF())

  private def position(out: DataOutputStream, p: ShardPosition): Unit = p match {
    case ShardPosition.TrimHorizon => out.writeByte(0)
    case ShardPosition.AtTimestamp(millis) => out.writeByte(1); out.writeLong(millis)
    case ShardPosition.AtSequence(sequence) => out.writeByte(2); out.writeUTF(sequence)
    case ShardPosition.AfterSequence(sequence, sub) =>
      out.writeByte(3); out.writeUTF(sequence); optional(out, sub)(out.writeLong(_))
    case ShardPosition.ShardEnd(last) => out.writeByte(4); optional(out, last)(out.writeUTF)
  }

  private def position(in: DataInputStream): ShardPosition = in.readUnsignedByte() match {
    case 0 => ShardPosition.TrimHorizon
    case 1 => ShardPosition.AtTimestamp(in.readLong())
    case 2 => ShardPosition.AtSequence(in.readUTF())
    case 3 => ShardPosition.AfterSequence(in.readUTF(), optional(in)(in.readLong()))
    case 4 => ShardPosition.ShardEnd(optional(in)(in.readUTF()))
    case other => throw new IllegalArgumentException(s"a prefetch report names shard position kind $other")
  }

  private def optional[T](out: DataOutputStream, value: Option[T])(write: T => Unit): Unit = value match {
    case Some(v) => out.writeBoolean(true); write(v)
    case None => out.writeBoolean(false)
  }

  private def optional[T](in: DataInputStream)(read: => T): Option[T] = if (in.readBoolean()) Some(read) else None
}
