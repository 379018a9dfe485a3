// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.LongAdder

import scala.jdk.CollectionConverters._

import io.netty.buffer.{ByteBuf, ByteBufAllocator}

/** What an operation answers: a whole document, or (SubscribeToShard) an event stream. */
sealed trait Reply

/** `errorType` names the AWS error code of an error answer (the x-amzn-ErrorType header). */
final case class Whole(status: Int, contentType: String, body: ByteBuf, errorType: Option[String] = None) extends Reply

final case class EventStream(subscription: Subscription) extends Reply

/**
 * The Kinesis operations the AWS SDK v2 calls, answered from memory. Reads are in
 * [[ReadOperations]], the control plane and puts in [[ControlOperations]]; this picks one by
 * the X-Amz-Target header and turns [[KinesisFault]]s into error answers.
 */
final class Operations(streams: BenchStreams, limits: Option[Limits]) {
  private val reads = new ReadOperations(streams, limits)
  private val control = new ControlOperations(streams, limits)
  private val calls = new ConcurrentHashMap[String, LongAdder]()

  /** Calls answered so far, by operation: what a row did to Kinesis, besides what it read. */
  def callCounts: Map[String, Long] = calls.asScala.map { case (operation, n) => operation -> n.sum() }.toMap

  def handle(target: String, contentType: String, body: Array[Byte], alloc: ByteBufAllocator): Reply = {
    val cbor = DocWriter.isCbor(contentType)
    val responseType = if (cbor) DocWriter.CborType else DocWriter.JsonType
    val operation = Option(target).map(_.substring(target.lastIndexOf('.') + 1)).getOrElse("")
    calls.computeIfAbsent(operation, _ => new LongAdder()).increment()
    try {
      val request = RequestDoc.parse(body, contentType)
      operation match {
        case "GetRecords" => Whole(200, responseType, reads.getRecords(request, alloc))
        case "SubscribeToShard" => EventStream(reads.subscribe(request, responseType))
        case _ =>
          val out = alloc.buffer(256)
          val w = DocWriter(contentType, out)
          try control.answer(operation, request, w, reads)
          catch { case e: Throwable => out.release(); throw e }
          Whole(200, responseType, out)
      }
    } catch {
      case f: KinesisFault => error(f, responseType, alloc)
    }
  }

  def error(fault: KinesisFault, contentType: String, alloc: ByteBufAllocator): Whole = {
    val out = alloc.buffer(128)
    val w = DocWriter(contentType, out)
    w.startMap(2)
    w.key("__type")
    w.string(fault.code)
    w.key("message")
    w.string(fault.message)
    w.endMap()
    Whole(fault.status, contentType, out, Some(fault.code))
  }
}

/** GetShardIterator, GetRecords, SubscribeToShard. */
final class ReadOperations(streams: BenchStreams, limits: Option[Limits]) {

  def shardOf(request: RequestDoc, streamName: Option[String]): BenchShard = {
    val name = streamName.orElse(request.string("StreamARN").flatMap(streams.byArn(_).map(_.name)))
      .getOrElse(throw KinesisFault.invalid("StreamName or StreamARN is required"))
    val stream = streams.get(name).getOrElse(throw KinesisFault.notFound(s"Stream $name not found"))
    val shardId = request.string("ShardId").getOrElse(throw KinesisFault.invalid("ShardId is required"))
    stream.shard(shardId).getOrElse(throw KinesisFault.notFound(s"Shard $shardId in stream $name not found"))
  }

  /** The position a GetShardIterator or SubscribeToShard starting point names. */
  def startPosition(shard: BenchShard, kind: String, sequence: Option[String], timestampMillis: Option[Long]): Long = {
    def positionOf(seq: String): Long = Sequence.parse(seq) match {
      case Some((index, position)) if index == shard.index => position
      case _ => throw KinesisFault.invalid(s"Invalid StartingSequenceNumber $seq for ${shard.shardId}")
    }
    val position = kind match {
      case "TRIM_HORIZON" => 0L
      case "LATEST" => shard.end
      case "AT_SEQUENCE_NUMBER" => positionOf(sequence.getOrElse(throw KinesisFault.invalid("StartingSequenceNumber is required")))
      case "AFTER_SEQUENCE_NUMBER" => positionOf(sequence.getOrElse(throw KinesisFault.invalid("StartingSequenceNumber is required"))) + 1
      case "AT_TIMESTAMP" => shard.positionAt(timestampMillis.getOrElse(throw KinesisFault.invalid("Timestamp is required")))
      case other => throw KinesisFault.invalid(s"Unknown ShardIteratorType $other")
    }
    math.min(position, shard.end)
  }

  def shardIterator(request: RequestDoc): String = {
    val shard = shardOf(request, request.string("StreamName"))
    val kind = request.string("ShardIteratorType").getOrElse(throw KinesisFault.invalid("ShardIteratorType is required"))
    val position = startPosition(shard, kind, request.string("StartingSequenceNumber"), request.timestampMillis("Timestamp"))
    Sequence.iterator(shard.stream.name, shard.index, position)
  }

  def getRecords(request: RequestDoc, alloc: ByteBufAllocator): ByteBuf = {
    val iterator = request.string("ShardIterator").getOrElse(throw KinesisFault.invalid("ShardIterator is required"))
    val (name, index, position) = Sequence.parseIterator(iterator)
      .getOrElse(throw KinesisFault.invalid(s"Invalid ShardIterator $iterator"))
    val stream = streams.get(name).getOrElse(throw KinesisFault.notFound(s"Stream $name not found"))
    val shard = stream.shards.lift(index).getOrElse(throw KinesisFault.notFound(s"Shard $index of $name not found"))
    val limit = request.long("Limit").getOrElse(Limits.MaxRecordsPerCall.toLong)
    if (limit < 1 || limit > Limits.MaxRecordsPerCall) throw KinesisFault.invalid(s"Limit $limit is not in 1..${Limits.MaxRecordsPerCall}")
    val key = s"$name/${shard.shardId}"
    limits.foreach { l =>
      if (!l.admitGetRecords(key)) throw KinesisFault.throttled(s"Rate exceeded for shard ${shard.shardId}: 5 GetRecords a second")
      if (l.readable(key) <= 0) throw KinesisFault.throttled(s"Rate exceeded for shard ${shard.shardId}: 2 MiB/s read")
    }
    val run = RecordRun.take(shard, position, limit.toInt, Limits.MaxBytesPerCall)
    limits.foreach(_.read(key, run.bytes))
    val cbor = request.cbor
    val out = alloc.buffer(run.encodedSizeHint(cbor))
    val w = if (cbor) new Cbor(out) else new Json(out)
    w.startMap(3)
    run.writeRecords(w)
    w.key("NextShardIterator")
    w.string(Sequence.iterator(name, index, run.until))
    w.key("MillisBehindLatest")
    w.long(run.millisBehindLatest(System.currentTimeMillis()))
    w.endMap()
    out
  }

  def subscribe(request: RequestDoc, contentType: String): Subscription = {
    val consumerArn = request.string("ConsumerARN").getOrElse(throw KinesisFault.invalid("ConsumerARN is required"))
    val stream = streams.byArn(consumerArn).getOrElse(throw KinesisFault.notFound(s"Consumer $consumerArn not found"))
    if (!stream.consumers.values().stream().anyMatch(_.arn == consumerArn)) {
      throw KinesisFault.notFound(s"Consumer $consumerArn not found")
    }
    val shard = shardOf(request, Some(stream.name))
    val start = request.doc("StartingPosition")
    val kind = start.string("Type").getOrElse(throw KinesisFault.invalid("StartingPosition.Type is required"))
    val position = startPosition(shard, kind, start.string("SequenceNumber"), start.timestampMillis("Timestamp"))
    val key = s"$consumerArn/${shard.shardId}"
    limits.foreach(_.admitSubscribe(key).foreach(f => throw f))
    new Subscription(shard, position, contentType, limits.map(l => (l, key)))
  }
}
