// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.bench

import java.util.Base64

import scala.collection.mutable

import software.amazon.awssdk.thirdparty.jackson.core.{JsonFactory, JsonParser, JsonToken}
import software.amazon.awssdk.thirdparty.jackson.dataformat.cbor.CBORFactory

/**
 * A request body read into plain values (Map, Seq, String, Long, Double, Array[Byte]) with the
 * Jackson copy the SDK already carries. Requests are small; only responses need to be fast.
 */
final class RequestDoc(val fields: Map[String, Any], val cbor: Boolean) {
  def string(name: String): Option[String] = fields.get(name).collect { case s: String => s }

  def long(name: String): Option[Long] = fields.get(name).collect {
    case n: Long => n
    case d: Double => d.toLong
    case s: String if s.nonEmpty && s.forall(_.isDigit) => s.toLong
  }

  def doc(name: String): RequestDoc = fields.get(name) match {
    case Some(m: Map[_, _]) => new RequestDoc(m.asInstanceOf[Map[String, Any]], cbor)
    case _ => new RequestDoc(Map.empty, cbor)
  }

  def docs(name: String): Seq[RequestDoc] = fields.get(name) match {
    case Some(items: Seq[_]) => items.collect { case m: Map[_, _] => new RequestDoc(m.asInstanceOf[Map[String, Any]], cbor) }
    case _ => Nil
  }

  /** A blob: a byte string in CBOR, base64 text in JSON. */
  def blob(name: String): Array[Byte] = fields.get(name) match {
    case Some(b: Array[Byte]) => b
    case Some(s: String) => Base64.getDecoder.decode(s)
    case _ => Array.emptyByteArray
  }

  /** A timestamp in epoch milliseconds: CBOR carries milliseconds, JSON seconds with a fraction. */
  def timestampMillis(name: String): Option[Long] = fields.get(name).collect {
    case n: Long => if (cbor) n else n * 1000
    case d: Double => if (cbor) d.toLong else (d * 1000).toLong
  }
}

object RequestDoc {
  private val json = new JsonFactory()
  private val cborFactory = new CBORFactory()

  def parse(body: Array[Byte], contentType: String): RequestDoc = {
    val cbor = DocWriter.isCbor(contentType)
    if (body.isEmpty) return new RequestDoc(Map.empty, cbor)
    val parser = (if (cbor) cborFactory else json).createParser(body)
    try {
      parser.nextToken()
      value(parser) match {
        case m: Map[_, _] => new RequestDoc(m.asInstanceOf[Map[String, Any]], cbor)
        case _ => new RequestDoc(Map.empty, cbor)
      }
    } finally parser.close()
  }

  private def value(p: JsonParser): Any = p.currentToken() match {
    case JsonToken.START_OBJECT =>
      val fields = mutable.LinkedHashMap[String, Any]()
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        val name = p.currentName()
        p.nextToken()
        fields(name) = value(p)
      }
      fields.toMap
    case JsonToken.START_ARRAY =>
      val items = Vector.newBuilder[Any]
      while (p.nextToken() != JsonToken.END_ARRAY) items += value(p)
      items.result()
    case JsonToken.VALUE_STRING => p.getText
    case JsonToken.VALUE_NUMBER_INT => p.getLongValue
    case JsonToken.VALUE_NUMBER_FLOAT => p.getDoubleValue
    case JsonToken.VALUE_EMBEDDED_OBJECT => p.getBinaryValue
    case JsonToken.VALUE_TRUE => true
    case JsonToken.VALUE_FALSE => false
    case _ => null
  }
}
