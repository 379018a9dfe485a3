// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.kpl

import java.io.ByteArrayOutputStream
import java.math.BigInteger
import java.nio.charset.StandardCharsets.UTF_8
import java.security.MessageDigest

import scala.util.Random

/**
 * A model of the KPL aggregate format written for the property tests, independent of the
 * connector's codec: protobuf fields written by hand (any order, unknown fields of every wire
 * type, varints longer than needed), and what the aggregate means worked out from the model
 * rather than parsed back.
 */
object KplModel {
  /** A protobuf field: number, and a value of one wire type. */
  sealed trait Field { def number: Int }
  /** A varint; `padding` more bytes than it needs (a longer form protobuf readers accept, up to 10 bytes). */
  final case class VarintField(number: Int, value: Long, padding: Int = 0) extends Field
  final case class BytesField(number: Int, value: Array[Byte]) extends Field
  final case class Fixed32Field(number: Int, value: Int) extends Field
  final case class Fixed64Field(number: Int, value: Long) extends Field

  def encode(fields: Seq[Field]): Array[Byte] = {
    val out = new ByteArrayOutputStream()
    def varint(value: Long, padding: Int): Unit = {
      var v = value
      var groups = Vector.empty[Int]
      while ({ groups :+= (v & 0x7f).toInt; v >>>= 7; v != 0 }) ()
      val all = groups ++ Vector.fill(math.min(padding, 10 - groups.size))(0)
      all.zipWithIndex.foreach { case (g, i) => out.write(if (i < all.size - 1) g | 0x80 else g) }
    }
    def key(number: Int, wireType: Int): Unit = varint((number.toLong << 3) | wireType, 0)
    fields.foreach {
      case VarintField(n, v, padding) => key(n, 0); varint(v, padding)
      case BytesField(n, v) => key(n, 2); varint(v.length.toLong, 0); out.write(v)
      case Fixed32Field(n, v) => key(n, 5); (0 until 4).foreach(i => out.write(v >>> (8 * i)))
      case Fixed64Field(n, v) => key(n, 1); (0 until 8).foreach(i => out.write((v >>> (8 * i)).toInt))
    }
    out.toByteArray
  }

  /** Magic bytes, body, MD5 of the body. */
  def envelope(body: Array[Byte]): Array[Byte] =
    Array[Byte](0xf3.toByte, 0x89.toByte, 0x9a.toByte, 0xc2.toByte) ++ body ++
      MessageDigest.getInstance("MD5").digest(body)

  /** One user record's entry: its fields' values (the last of a repeated one counts, as in protobuf). */
  final case class Entry(partitionKeyIndex: Option[Long], hashKeyIndex: Option[Long], data: Option[Array[Byte]])

  /** An aggregate: its tables and entries, and the fields they are written as (in any order). */
  final case class Aggregate(partitionKeys: Seq[String], hashKeys: Seq[String], entries: Seq[Entry],
      fields: Seq[Field]) {
    def bytes: Array[Byte] = envelope(encode(fields))

    /**
     * What the aggregate holds, as (partition key, explicit hash key, data, index) for each
     * user record, or None when it is not a valid aggregate: an entry without a partition key
     * index or data (both required), an index outside its table, a hash key that is not a
     * decimal number.
     */
    def userRecords: Option[Seq[(String, Option[String], Seq[Byte], Long)]] = {
      val read = entries.zipWithIndex.map { case (e, i) =>
        for {
          pk <- e.partitionKeyIndex.filter(k => k >= 0 && k < partitionKeys.size).map(k => partitionKeys(k.toInt))
          data <- e.data
          hashKey <- e.hashKeyIndex match {
            case None => Some(None)
            case Some(k) if k >= 0 && k < hashKeys.size && hashKeys(k.toInt).matches("[0-9]+") =>
              Some(Some(hashKeys(k.toInt)))
            case _ => None
          }
        } yield (pk, hashKey, data.toSeq, i.toLong)
      }
      if (read.forall(_.isDefined)) Some(read.flatten) else None
    }
  }

  /** The hash key Kinesis files a user record under: the explicit one, or the MD5 of the partition key. */
  def hashKey(partitionKey: String, explicit: Option[String]): BigInt =
    explicit.fold(BigInt(new BigInteger(1, MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(UTF_8)))))(
      BigInt(_))

  /** `groups` interleaved at random, each keeping its own order (as repeated protobuf fields must). */
  def interleave[T](groups: Seq[Seq[T]], seed: Long): Seq[T] = {
    val r = new Random(seed)
    var rest = groups.filter(_.nonEmpty).toVector
    val out = Vector.newBuilder[T]
    while (rest.nonEmpty) {
      val i = r.nextInt(rest.size)
      out += rest(i).head
      rest = if (rest(i).size == 1) rest.patch(i, Nil, 1) else rest.updated(i, rest(i).tail)
    }
    out.result()
  }
}
