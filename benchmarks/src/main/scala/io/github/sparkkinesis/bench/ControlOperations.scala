// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

/**
 * The control plane (streams, shards, consumers) and puts: small answers, written into `w`.
 * ListShards pages are at most 10,000 shards (MaxResults, default 1,000), as on Kinesis. Puts
 * go to the shard Kinesis would pick and, with `limits`, are refused past a shard's write limits.
 * A stream takes records (data plus partition key) up to its `MaxRecordSizeInKiB` (1024 unless
 * set at CreateStream or by UpdateMaxRecordSize, at most 10240); a larger one is refused with
 * InvalidArgumentException (PutRecords: that entry), as kinesis-mock refuses it.
 */
final class ControlOperations(streams: BenchStreams, limits: Option[Limits]) {

  def answer(operation: String, request: RequestDoc, w: DocWriter, reads: ReadOperations): Unit = operation match {
    case "GetShardIterator" =>
      w.startMap(1); w.key("ShardIterator"); w.string(reads.shardIterator(request)); w.endMap()
    case "ListShards" => listShards(request, w)
    case "DescribeStreamSummary" => describeStreamSummary(request, w)
    case "CreateStream" =>
      val name = request.string("StreamName").getOrElse(throw KinesisFault.invalid("StreamName is required"))
      val shards = request.long("ShardCount").getOrElse(1L)
      if (shards < 1 || shards > 100000) throw KinesisFault.invalid(s"ShardCount $shards is not in 1..100000")
      val maxRecordKiB = recordSizeOf(request).getOrElse(BenchStream.DefaultMaxRecordKiB)
      val created = streams.create(name, shards.toInt, 0L, 0)
      created.getOrElse(throw KinesisFault.resourceInUse(s"Stream $name already exists")).maxRecordKiB = maxRecordKiB
      w.startMap(0); w.endMap()
    case "UpdateMaxRecordSize" =>
      val stream = streamOf(request)
      stream.maxRecordKiB = recordSizeOf(request).getOrElse(throw KinesisFault.validation("MaxRecordSizeInKiB is required"))
      w.startMap(0); w.endMap()
    case "DeleteStream" =>
      if (!streams.delete(streamOf(request).name)) throw KinesisFault.notFound("Stream not found")
      w.startMap(0); w.endMap()
    case "ListStreams" =>
      val names = streams.names
      w.startMap(2); w.key("StreamNames"); w.startArray(names.size); names.foreach(w.string); w.endArray()
      w.key("HasMoreStreams"); w.string("false"); w.endMap()
    case "PutRecord" =>
      val (shard, position) = put(streamOf(request), request).fold(fault => throw fault, identity)
      w.startMap(2); w.key("SequenceNumber"); w.sequence(shard.sequencePrefix, position)
      w.key("ShardId"); w.string(shard.shardId); w.endMap()
    case "PutRecords" =>
      val stream = streamOf(request)
      val results = request.docs("Records").map(put(stream, _))
      w.startMap(2); w.key("FailedRecordCount"); w.long(results.count(_.isLeft).toLong)
      w.key("Records"); w.startArray(results.size)
      results.foreach {
        case Right((shard, position)) =>
          w.startMap(2); w.key("SequenceNumber"); w.sequence(shard.sequencePrefix, position)
          w.key("ShardId"); w.string(shard.shardId); w.endMap()
        case Left(fault) =>
          w.startMap(2); w.key("ErrorCode"); w.string(fault.code)
          w.key("ErrorMessage"); w.string(fault.message); w.endMap()
      }
      w.endArray(); w.endMap()
    case "RegisterStreamConsumer" =>
      val stream = streamOf(request)
      val name = request.string("ConsumerName").getOrElse(throw KinesisFault.invalid("ConsumerName is required"))
      val now = System.currentTimeMillis()
      val consumer = BenchConsumer(name, s"${stream.arn}/consumer/$name:${now / 1000}", now)
      if (stream.consumers.putIfAbsent(name, consumer) != null) throw KinesisFault.resourceInUse(s"Consumer $name exists")
      w.startMap(1); w.key("Consumer"); writeConsumer(w, consumer, None); w.endMap()
    case "DescribeStreamConsumer" =>
      val (stream, consumer) = consumerOf(request)
      w.startMap(1); w.key("ConsumerDescription"); writeConsumer(w, consumer, Some(stream.arn)); w.endMap()
    case "ListStreamConsumers" =>
      val stream = streamOf(request)
      val all = stream.consumers.values().toArray(Array.empty[BenchConsumer]).sortBy(_.name)
      w.startMap(1); w.key("Consumers"); w.startArray(all.length); all.foreach(writeConsumer(w, _, None)); w.endArray(); w.endMap()
    case "DeregisterStreamConsumer" =>
      val (stream, consumer) = consumerOf(request)
      stream.consumers.remove(consumer.name)
      w.startMap(0); w.endMap()
    case other => throw KinesisFault.unknownOperation(other)
  }

  private def streamOf(request: RequestDoc): BenchStream =
    request.string("StreamName").map(n => streams.get(n).getOrElse(throw KinesisFault.notFound(s"Stream $n not found")))
      .orElse(request.string("StreamARN").map(a => streams.byArn(a).getOrElse(throw KinesisFault.notFound(s"Stream $a not found"))))
      .getOrElse(throw KinesisFault.invalid("StreamName or StreamARN is required"))

  private def consumerOf(request: RequestDoc): (BenchStream, BenchConsumer) = request.string("ConsumerARN") match {
    case Some(arn) =>
      val stream = streams.byArn(arn).getOrElse(throw KinesisFault.notFound(s"Consumer $arn not found"))
      val consumer = stream.consumers.values().toArray(Array.empty[BenchConsumer]).find(_.arn == arn)
      (stream, consumer.getOrElse(throw KinesisFault.notFound(s"Consumer $arn not found")))
    case None =>
      val stream = streamOf(request)
      val name = request.string("ConsumerName").getOrElse(throw KinesisFault.invalid("ConsumerName or ConsumerARN is required"))
      (stream, Option(stream.consumers.get(name)).getOrElse(throw KinesisFault.notFound(s"Consumer $name not found")))
  }

  private def writeConsumer(w: DocWriter, c: BenchConsumer, streamArn: Option[String]): Unit = {
    w.startMap(if (streamArn.isDefined) 5 else 4)
    w.key("ConsumerName"); w.string(c.name)
    w.key("ConsumerARN"); w.string(c.arn)
    w.key("ConsumerStatus"); w.string("ACTIVE")
    w.key("ConsumerCreationTimestamp"); w.timestamp(c.createdMillis)
    streamArn.foreach { a => w.key("StreamARN"); w.string(a) }
    w.endMap()
  }

  private def recordSizeOf(request: RequestDoc): Option[Int] = request.long("MaxRecordSizeInKiB").map { kib =>
    if (kib < BenchStream.DefaultMaxRecordKiB || kib > BenchStream.MostMaxRecordKiB) {
      throw KinesisFault.validation(s"MaxRecordSizeInKiB $kib is not in " +
        s"${BenchStream.DefaultMaxRecordKiB}..${BenchStream.MostMaxRecordKiB}")
    }
    kib.toInt
  }

  /**
   * The shard and position a record was stored at, or why it was refused: over the stream's
   * record size limit, or the shard's write limits.
   */
  private def put(stream: BenchStream, entry: RequestDoc): Either[KinesisFault, (BenchShard, Long)] = {
    val key = entry.string("PartitionKey").getOrElse(throw KinesisFault.invalid("PartitionKey is required"))
    val data = entry.blob("Data")
    val shard = stream.shardFor(key, entry.string("ExplicitHashKey"))
    val size = data.length.toLong + key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
    val maxSize = stream.maxRecordKiB * 1024L
    if (size > maxSize) {
      Left(KinesisFault.invalid(s"Record size $size (data plus partition key) exceeds the stream's max record size " +
        s"of $maxSize bytes"))
    } else if (limits.exists(!_.admitPut(s"${stream.name}/${shard.shardId}", size))) {
      Left(KinesisFault.throttled(
        s"Rate exceeded for shard ${shard.shardId} in stream ${stream.name} under account 000000000000."))
    } else Right(shard -> shard.append(StoredRecord(key, data, System.currentTimeMillis())))
  }

  private def listShards(request: RequestDoc, w: DocWriter): Unit = {
    // The token names the stream and the first shard of the next page.
    val (stream, from) = request.string("NextToken") match {
      case Some(token) => token.split('|') match {
        case Array(name, index) if index.nonEmpty && index.forall(_.isDigit) =>
          (streams.get(name).getOrElse(throw KinesisFault.notFound(s"Stream $name not found")), index.toInt)
        case _ => throw KinesisFault.invalid(s"Invalid NextToken $token")
      }
      case None =>
        val stream = streamOf(request)
        val after = request.string("ExclusiveStartShardId").flatMap(stream.shard).map(_.index + 1).getOrElse(0)
        (stream, after)
    }
    val pageSize = request.long("MaxResults").getOrElse(1000L)
    if (pageSize < 1 || pageSize > 10000) throw KinesisFault.invalid(s"MaxResults $pageSize is not in 1..10000")
    val page = stream.shards.slice(from, from + pageSize.toInt)
    val more = from + page.size < stream.shards.size
    w.startMap(if (more) 2 else 1)
    w.key("Shards")
    w.startArray(page.size)
    page.foreach { s =>
      val (low, high) = s.hashKeyRange
      w.startMap(3)
      w.key("ShardId"); w.string(s.shardId)
      w.key("HashKeyRange"); w.startMap(2); w.key("StartingHashKey"); w.string(low); w.key("EndingHashKey"); w.string(high); w.endMap()
      w.key("SequenceNumberRange"); w.startMap(1); w.key("StartingSequenceNumber"); w.sequence(s.sequencePrefix, 0L); w.endMap()
      w.endMap()
    }
    w.endArray()
    if (more) { w.key("NextToken"); w.string(s"${stream.name}|${from + page.size}") }
    w.endMap()
  }

  private def describeStreamSummary(request: RequestDoc, w: DocWriter): Unit = {
    val stream = streamOf(request)
    w.startMap(1)
    w.key("StreamDescriptionSummary")
    w.startMap(10)
    w.key("StreamName"); w.string(stream.name)
    w.key("StreamARN"); w.string(stream.arn)
    w.key("StreamStatus"); w.string("ACTIVE")
    w.key("StreamModeDetails"); w.startMap(1); w.key("StreamMode"); w.string("PROVISIONED"); w.endMap()
    w.key("RetentionPeriodHours"); w.long(24)
    w.key("StreamCreationTimestamp"); w.timestamp(stream.createdMillis)
    w.key("EnhancedMonitoring"); w.startArray(0); w.endArray()
    w.key("OpenShardCount"); w.long(stream.shards.size)
    w.key("ConsumerCount"); w.long(stream.consumers.size())
    w.key("MaxRecordSizeInKiB"); w.long(stream.maxRecordKiB)
    w.endMap()
    w.endMap()
  }
}
