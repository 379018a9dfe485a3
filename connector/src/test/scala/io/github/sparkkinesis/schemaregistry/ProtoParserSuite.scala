// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.schemaregistry

import org.apache.spark.sql.types._
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

/** The `.proto` subset GSR producers register, its Spark types, the GSR message numbering, and hostile texts as clear errors. */
class ProtoParserSuite extends AnyFunSuite with Matchers {
  private val orders =
    """// An order, as a producer registers it
      |syntax = "proto3";
      |package shop.v1;
      |import "google/protobuf/timestamp.proto";
      |option java_package = "com.example.shop"; /* ignored */
      |
      |message Order {
      |  reserved 9, 15 to 20;
      |  reserved "legacy";
      |  int64 id = 1;
      |  string item = 2 [deprecated = true];
      |  repeated sint32 deltas = 3;
      |  map<string, Line> lines = 4;
      |  Status status = 5;
      |  google.protobuf.Timestamp at = 6;
      |  optional double price = 7;
      |  oneof payment { string card = 8; bytes token = 10; }
      |  uint32 count = 11;
      |  fixed64 checksum = 12;
      |  message Line { float amount = 1; bool gift = 2; Empty nothing = 3; }
      |  message Empty {}
      |  enum Status { option allow_alias = true; UNKNOWN = 0; OPEN = 1; SHIPPED = 2; SENT = 2; }
      |}
      |service Orders { rpc Get (Order) returns (Order) { option idempotency_level = NO_SIDE_EFFECTS; } }
      |""".stripMargin

  test("a proto3 file's message has from_protobuf's Spark type: scalars, enums, maps, repeated, oneof, Timestamp") {
    val file = ProtoParser.parse(orders)
    ProtobufTypes.structOf(file, file.message(Some("Order"))) shouldBe StructType(Seq(
        StructField("id", LongType), StructField("item", StringType),
        StructField("deltas", ArrayType(IntegerType, containsNull = false)),
        StructField("lines",
          MapType(StringType,
            StructType(Seq(StructField("amount", FloatType), StructField("gift", BooleanType))),
            valueContainsNull = false)),
        StructField("status", StringType), StructField("at", TimestampType), StructField("price", DoubleType),
        StructField("card", StringType), StructField("token", BinaryType), StructField("count", IntegerType),
        StructField("checksum", LongType)))
    file.message(None).fullName shouldBe "shop.v1.Order"
    file.message(Some("shop.v1.Order.Line")).fullName shouldBe "shop.v1.Order.Line"
    val fields = file.message(Some("Order")).fields.map(f => f.name -> f).toMap
    fields("id").implicitPresence shouldBe true
    fields("price").implicitPresence shouldBe false
    fields("card").implicitPresence shouldBe false
  }

  test("messages are numbered as AWS's serializer numbers them: every message, nested ones too, by full name") {
    val file = ProtoParser.parse(
      "syntax = \"proto3\"; message B { message C {} message A { message D {} } } message A2 {}")
    file.indexed shouldBe Seq("A2", "B", "B.A", "B.A.D", "B.C")
    // A map field's entry message is a nested message of the descriptor, so it is numbered too.
    ProtoParser.parse(
      "syntax = \"proto3\"; message M { map<string, int32> my_counts = 1; message Z {} }").indexed shouldBe
      Seq("M", "M.MyCountsEntry", "M.Z")
  }

  test("proto2: labels, required fields non-nullable, types resolved from the enclosing scopes outwards") {
    val file = ProtoParser.parse(
      """syntax = "proto2";
        |package p;
        |message Outer { message Inner { required int32 n = 1; } }
        |message Uses { required Outer.Inner inner = 1; repeated .p.Outer.Inner more = 2 [packed = true]; optional Kind k = 3; }
        |enum Kind { A = 1; B = -2; C = 0x10; }""".stripMargin)
    ProtobufTypes.structOf(file, file.message(Some("p.Uses"))) shouldBe StructType(Seq(
        StructField("inner", StructType(Seq(StructField("n", IntegerType, nullable = false))), nullable = false),
        StructField("more",
          ArrayType(StructType(Seq(StructField("n", IntegerType, nullable = false))), containsNull = false)),
        StructField("k", StringType)))
    file.messages("p.Uses").fields(2).fieldType shouldBe ProtoType.Enum("p.Kind", Map(1 -> "A", -2 -> "B", 16 -> "C"))
  }

  test("what the parser does not read fails with the line and the construct") {
    def failure(text: String): String = the[ProtoSchemaException].thrownBy(ProtoParser.parse(text)).getMessage
    failure("syntax = \"proto3\";\nimport \"other.proto\";\nmessage A {}") should
      (include("line 2") and include("import 'other.proto' is not supported"))
    failure("syntax = \"proto2\";\nmessage A {\n  optional group G = 1 { }\n}") should
      (include("line 3") and include("group"))
    failure("syntax = \"proto2\";\nmessage A { extensions 100 to 200; }\nextend A { optional int32 x = 100; }") should
      (include("line 3") and include("'extend'"))
    failure("edition = \"2023\";\nmessage A {}") should (include("line 1") and include("editions are not read"))
    failure("syntax = \"proto3\";\nmessage A {\n  Missing m = 1;\n}") should (include("line 3") and include(
      "unknown type 'Missing'"))
    failure("syntax = \"proto3\";\nmessage A { google.protobuf.Any a = 1; }") should include("import its .proto")
    failure("syntax = \"proto3\";\nmessage A { int32 a = 1; int32 b = 1; }") should include("field number 1 twice")
    failure("syntax = \"proto3\";\nmessage A { int32 a = 0; }") should include("field number 0 of 'a' is not allowed")
    failure("syntax = \"proto3\";\nmessage A { required int32 a = 1; }") should include(
      "'required' is not allowed in proto3")
    failure("syntax = \"proto3\";\nmessage A { map<double, int32> m = 1; }") should include("map key type double")
    failure("syntax = \"proto3\";\n/* never closed\nmessage A {}") should (include("line 2") and include(
      "comment is not closed"))
    failure("syntax = \"proto3\";\nmessage A { int32 a = 1;") should include("ends early")
    failure("syntax = \"proto3\";") should include("declares no message")
    failure("syntax = \"proto4\"; message A {}") should include("syntax 'proto4' is not read")
  }

  test("hostile schemas: too long, nested too deep, a message containing itself, fail clearly") {
    the[ProtoSchemaException].thrownBy(ProtoParser.parse("//" + "x" * ProtoParser.MaxLength)).getMessage should
      include(s"at most ${ProtoParser.MaxLength} are read")
    val deep = "syntax = \"proto3\";\n" + "message M {" * (ProtoParser.MaxDepth + 1) + "}" * (ProtoParser.MaxDepth + 1)
    the[ProtoSchemaException].thrownBy(ProtoParser.parse(deep)).getMessage should
      include(s"messages nest deeper than ${ProtoParser.MaxDepth}")
    val recursive = ProtoParser.parse("syntax = \"proto3\"; message Person { string name = 1; Person friend = 2; }")
    the[ProtoSchemaException].thrownBy(ProtobufTypes.structOf(recursive, recursive.message(None))).getMessage should
      include("contain itself")
  }
}
