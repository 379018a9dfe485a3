// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.catalyst.util.{ArrayBasedMapData, GenericArrayData}
import org.apache.spark.sql.types._
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** The Protobuf wire format read and written: the encoding's own examples, round trips, evolution by field number, hostile bytes. */
class ProtobufWireSuite extends AnyFunSuite with Matchers {
  private val proto =
    """syntax = "proto3";
      |import "google/protobuf/timestamp.proto";
      |message M {
      |  int32 a = 1; sint32 s = 2; sint64 s64 = 3; fixed32 f = 4; sfixed64 sf = 5; double d = 6; float x = 7;
      |  bool b = 8; string str = 9; bytes raw = 10; repeated int32 packed = 11; Color c = 12;
      |  Inner inner = 13; repeated Inner inners = 14; map<string, int64> counts = 15;
      |  google.protobuf.Timestamp at = 16; optional int32 maybe = 17; uint32 u = 18; int64 big = 19;
      |  enum Color { NONE = 0; RED = 1; }
      |  message Inner { string name = 1; }
      |}""".stripMargin
  private val file = ProtoParser.parse(proto)
  private val message = file.message(None)
  private val struct = ProtobufTypes.structOf(file, message)

  private def read(bytes: Array[Byte], m: ProtoMessage = message, f: ProtoFile = file): InternalRow =
    new ProtobufReader(f, m).read(bytes, 0, bytes.length)

  private def bytes(hex: String): Array[Byte] = hex.grouped(2).map(Integer.parseInt(_, 16).toByte).toArray

  test("bytes as the Protobuf encoding guide spells them decode to their values") {
    // a = 150; s = -2 (zigzag 3); str = "testing"; packed = [3, 270, 86942]
    val row = read(bytes("089601" + "1003" + "4a0774657374696e67" + "5a06038e029ea705"))
    row.getInt(0) shouldBe 150
    row.getInt(1) shouldBe -2
    row.getUTF8String(8).toString shouldBe "testing"
    row.getArray(10).toIntArray().toSeq shouldBe Seq(3, 270, 86942)
    // Absent fields: null, and repeated fields and maps empty, as from_protobuf gives them.
    row.isNullAt(2) shouldBe true
    row.isNullAt(11) shouldBe true
    row.getArray(13).numElements() shouldBe 0
    row.getMap(14).numElements() shouldBe 0
    // The same repeated field unpacked, and a negative int32 (ten bytes).
    read(bytes("5803" + "588e02")).getArray(10).toIntArray().toSeq shouldBe Seq(3, 270)
    read(bytes("08ffffffffffffffffff01")).getInt(0) shouldBe -1
  }

  test("every type written by the writer reads back as the same row") {
    val row = InternalRow(-7, -300, Long.MinValue, -1, -5L, 2.5, 1.5f, true, UTF8String.fromString("é"),
      Array[Byte](0, 1), new GenericArrayData(Array[Any](1, -1, 300)), UTF8String.fromString("RED"),
      InternalRow(UTF8String.fromString("in")),
      new GenericArrayData(Array[Any](InternalRow(UTF8String.fromString("a")),
          InternalRow(UTF8String.fromString("b")))),
      ArrayBasedMapData(Array[Any](UTF8String.fromString("k")), Array[Any](9L)), 1700000000123456L, 0, -1, 1L << 40)
    val written = new ProtobufWriter(file, message, struct).write(row)
    val back = read(written)
    for ((field, i) <- struct.fields.zipWithIndex if !field.dataType.isInstanceOf[MapType])
      withClue(field.name)(back.get(i, field.dataType) shouldBe row.get(i, field.dataType))
    back.getMap(14).keyArray().getUTF8String(0).toString shouldBe "k"
    back.getMap(14).valueArray().getLong(0) shouldBe 9L
    // proto3 fields without presence are not written at their default; `optional` ones are.
    val defaults = InternalRow.fromSeq(Seq(0, null, null, null, null, 0.0, null, false, UTF8String.EMPTY_UTF8) ++
      Seq.fill(struct.size - 9)(null))
    new ProtobufWriter(file, message, struct).write(defaults) shouldBe empty
    val optionalZero = InternalRow.fromSeq(Seq.fill(16)(null) ++ Seq(0, null, null))
    new ProtobufWriter(file, message, struct).write(optionalZero).toSeq shouldBe bytes("8801" + "00").toSeq
  }

  test(
    "records of another version read by field number: unknown fields skipped, renamed ones kept, missing ones null") {
    val v2 = ProtoParser.parse(
      "syntax = \"proto3\"; message M { int64 a = 1; string renamed = 9; repeated string tags = 30; Extra e = 31; " +
        "message Extra { fixed64 z = 1; } }")
    val v2struct = ProtobufTypes.structOf(v2, v2.message(None))
    val written = new ProtobufWriter(v2, v2.message(None), v2struct).write(InternalRow(5L,
        UTF8String.fromString("kept"), new GenericArrayData(Array[Any](UTF8String.fromString("t"))), InternalRow(7L)))
    val row = read(written)
    row.getInt(0) shouldBe 5
    row.getUTF8String(8).toString shouldBe "kept"
    ProtobufCompatibility.conflicts(file, message, v2, v2.message(None)) shouldBe empty
    val changed = ProtoParser.parse("syntax = \"proto3\"; message M { string a = 1; repeated bool b = 8; }")
    ProtobufCompatibility.conflicts(file, message, changed, changed.message(None)) shouldBe Seq(
      "M.a (number 1) is int32 in the query's schema, string in the record's",
      "M.b (number 8) is singular in the query's schema, repeated in the record's")
  }

  test("hostile or broken bytes fail saying what is wrong, never an index error") {
    def failure(hex: String): String = the[ProtobufWireException].thrownBy(read(bytes(hex))).getMessage
    failure("08ff") should include("varint runs past the end")
    failure("08ffffffffffffffffffff01") should include("longer than 10 bytes")
    failure("4a7f74") should include("length of 127 bytes runs past the end")
    failure("4aff" + "ffffff0f") should include("runs past the end")
    failure("0d0000") should include("has wire type 5; its type is written as wire type 0")
    failure("fb01") should include("a group, which is not read")
    failure("6a010a") should include("varint runs past the end")
    failure("0f") should include("wire type 7")
    // Unknown fields of every wire type are skipped.
    read(bytes("a006" + "01" + "a906" + "0102030405060708" + "a2060100" + "ad0601020304")).getArray(10)
      .numElements() shouldBe 0
    // A chain of messages nested deeper than the limit.
    val levels = ProtobufReader.MaxDepth + 1
    val chain = ProtoParser.parse("syntax = \"proto3\"; " +
      (1 until levels).map(i =>
        s"message L$i { L${i + 1} next = 1; } ").mkString + s"message L$levels { int32 v = 1; }")
    val nested = (1 until levels).foldLeft(bytes("0801"))((inner, _) =>
      Array[Byte](0x0a) ++ (if (inner.length < 128) Array(inner.length.toByte)
                            else Array((inner.length & 0x7f | 0x80).toByte, (inner.length >> 7).toByte)) ++ inner)
    the[ProtobufWireException].thrownBy(read(nested, chain.message(Some("L1")), chain)).getMessage should
      include(s"nest deeper than ${ProtobufReader.MaxDepth}")
  }

  test("the writer names a column that does not fit the message, and a row it cannot write") {
    def unfit(column: StructType): String =
      the[ProtoSchemaException].thrownBy(new ProtobufWriter(file, message, column)).getMessage
    unfit(StructType(Seq(StructField("colour", StringType)))) should include("no field for the column's /colour")
    unfit(StructType(Seq(StructField("a", StringType)))) should include(
      "/a is string; the message field is int32 (int)")
    unfit(StructType(Seq(StructField("packed", IntegerType)))) should include("an array (packed is repeated)")
    val enumColumn = StructType(Seq(StructField("c", StringType)))
    the[ProtobufWireException].thrownBy(new ProtobufWriter(file, message, enumColumn)
        .write(InternalRow(UTF8String.fromString("BLUE")))).getMessage should include(
      "'BLUE', not a value of enum M.Color (NONE, RED)")
    val wide = StructType(Seq(StructField("a", LongType)))
    the[ProtobufWireException].thrownBy(new ProtobufWriter(file, message, wide).write(InternalRow(1L << 40)))
      .getMessage should include("outside the range of int32")
  }
}
