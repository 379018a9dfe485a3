// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.types.{BinaryType, StringType, StructType}
import org.apache.spark.unsafe.types.UTF8String
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisPutApi}
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}
import io.github.sparkkinesis.client.sdk.KinesisClients
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.options.{KinesisSinkOptions, PutSettings}

class KinesisDataWriterSuite extends AnyFunSuite with Matchers {

  private val written = new StructType().add("partitionKey", StringType).add("data", BinaryType)
    .add("stream", StringType)

  private def options(stream: Option[String]) = KinesisSinkOptions(stream,
    ConnectionConfig("us-east-1", Some("http://localhost:4567"), CredentialsConfig.DefaultChain),
    PutSettings(maxRecordsPerPut = 500, maxBytesPerPut = 5L * 1024 * 1024, maxInFlightPuts = 2,
      maxPutRetries = 3, retryBackoffMs = 10, maxRetryBackoffMs = 100))

  private def writer(api: FakeKinesisPutApi, stream: Option[String] = Some("orders")): KinesisDataWriter =
    new KinesisDataWriter(KinesisSinkColumns.resolve(written, stream.isDefined), options(stream), api, new FakeClock())

  private def row(key: String, data: String, stream: String = null): InternalRow =
    InternalRow(UTF8String.fromString(key), data.getBytes("UTF-8"), UTF8String.fromString(stream))

  private def metrics(w: KinesisDataWriter): Map[String, Long] =
    w.currentMetricsValues().map(m => m.name() -> m.value()).toMap

  test("commit returns once every row is stored, with the task's counts") {
    val api = new FakeKinesisPutApi
    var refused = false // k1 is refused once, in whichever call carries it first
    api.refuse { (_, e) =>
      val refuse = e.partitionKey == "k1" && !refused
      refused ||= refuse
      if (refuse) Some("ProvisionedThroughputExceededException") else None
    }
    val w = writer(api)
    try {
      (0 until 3).foreach(i => w.write(row(s"k$i", s"v$i")))
      val message = w.commit().asInstanceOf[KinesisWriterCommitMessage]
      api.texts("orders").sorted shouldBe Seq("v0", "v1", "v2")
      // Two lanes (maxInFlightPuts 2): k1 in one, k0 and k2 in the other; k1 once more.
      message.counts shouldBe Map("recordsWritten" -> 3, "kinesisRecordsWritten" -> 3, "bytesWritten" -> 12,
        "putRequests" -> 3, "putRetries" -> 1, "throttledRecords" -> 1, "failedRecords" -> 0)
      metrics(w) shouldBe message.counts
    } finally w.close()
  }

  test("a writer holds its connection's clients until it closes, so a query stopping meanwhile leaves them open") {
    val connection = options(Some("orders")).connection
    val before = KinesisClients.userCount(connection)
    val w = writer(new FakeKinesisPutApi)
    KinesisClients.userCount(connection) shouldBe before + 1
    w.write(row("k", "d"))
    w.commit()
    w.close()
    KinesisClients.userCount(connection) shouldBe before
  }

  test("every metric the writer reports is one the write declares") {
    val w = writer(new FakeKinesisPutApi)
    try {
      metrics(w).keySet shouldBe KinesisSinkMetrics.supported.map(_.name()).toSet
      KinesisSinkMetrics.supported.foreach { m =>
        m.getClass.getDeclaredConstructor().newInstance() // Spark makes them by class name.
        m.description() should not be empty
      }
    } finally w.close()
  }

  test("rows are routed by their stream column when no streamName is given") {
    val api = new FakeKinesisPutApi
    val w = writer(api, stream = None)
    try {
      w.write(row("a", "1", "clicks"))
      w.write(row("b", "2", "orders"))
      w.write(row("c", "3", "clicks"))
      w.commit()
    } finally w.close()
    api.texts("clicks").sorted shouldBe Seq("1", "3") // Keys a and c may take different lanes.
    api.texts("orders") shouldBe Seq("2")
  }

  test("a bad row fails the task before it is sent, and abort drops the queued rows") {
    val api = new FakeKinesisPutApi
    val w = writer(api)
    try {
      w.write(row("k", "fine"))
      intercept[KinesisConnectorException](w.write(row("", "no key"))).getCondition shouldBe
        "KINESIS_SINK_INVALID_VALUE"
      w.abort()
    } finally w.close()
    api.calls shouldBe empty
  }

  private def bytesRow(key: String, size: Int): InternalRow =
    InternalRow(UTF8String.fromString(key), new Array[Byte](size), null)

  test("a stream without a larger limit refuses a row over 1 MiB, naming the limit; nothing is sent") {
    val api = new FakeKinesisPutApi
    val w = writer(api)
    try {
      w.write(bytesRow("k", 1024 * 1024 - 1)) // exactly 1 MiB with its key
      val e = intercept[KinesisConnectorException](w.write(bytesRow("k", 1024 * 1024)))
      e.getCondition shouldBe "KINESIS_SINK_RECORD_TOO_LARGE"
      e.getMessage should include("stream 'orders' is 1048577 bytes")
      e.getMessage should include("limit of 1048576 bytes (1024 KiB)")
      w.abort()
    } finally w.close()
    api.calls shouldBe empty
  }

  test("a stream's MaxRecordSizeInKiB lets larger rows through, each alone in its call, and bounds them") {
    val mib = 1024 * 1024
    val api = new FakeKinesisPutApi().recordLimit("orders", 4L * mib)
    val w = writer(api)
    try {
      Seq("a" -> 100, "b" -> (4 * mib - 1), "c" -> 100, "d" -> (3 * mib)).foreach { case (k, n) =>
        w.write(bytesRow(k, n))
      }
      val e = intercept[KinesisConnectorException](w.write(bytesRow("e", 4 * mib)))
      e.getMessage should include("stream 'orders' is 4194305 bytes")
      e.getMessage should include("limit of 4194304 bytes (4096 KiB)")
      w.commit()
    } finally w.close()
    api.records("orders").map(_.size).sorted shouldBe Seq(101, 101, 3 * mib + 1, 4 * mib)
    api.calls.filter(_.bytes > 5L * mib) shouldBe empty
    api.calls.filter(_.bytes >= 3L * mib).map(_.records) shouldBe Seq(1, 1) // 3 + 4 MiB exceed maxBytesPerPut together
    api.describeCalls shouldBe 1 // asked once, for the first row over 1 MiB
  }

  test("rows of 1 MiB or less never ask for the stream's limit") {
    val api = new FakeKinesisPutApi
    val w = writer(api)
    try {
      w.write(bytesRow("k", 1024 * 1024 - 1))
      w.commit()
    } finally w.close()
    api.describeCalls shouldBe 0
  }

  test("the commit message adds up over tasks, every metric present") {
    val a = KinesisWriterCommitMessage(Map("recordsWritten" -> 2L, "putRetries" -> 1L))
    val b = KinesisWriterCommitMessage(Map("recordsWritten" -> 5L))
    val total = KinesisWriterCommitMessage.total(Seq(a, b))
    total("recordsWritten") shouldBe 7
    total("putRetries") shouldBe 1
    total.keySet shouldBe KinesisSinkMetrics.names.toSet
  }
}
