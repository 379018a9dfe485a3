// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{Executors, TimeUnit}

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._
import scala.util.Random

import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisPutApi}
import io.github.sparkkinesis.FakeKinesisPutApi.entry
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.options.PutSettings

/**
 * Order per partition key with calls in parallel: what the fake Kinesis stored, key by key,
 * under throttling and partial failures in several lanes at once.
 */
class PutRecordsOrderSuite extends AnyFunSuite with Matchers with Eventually {
  // Waits of up to 10 s for what other threads do, checked every 20 ms.
  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = 10.seconds, interval = 20.millis)

  private val settings = PutSettings(maxRecordsPerPut = 50, maxBytesPerPut = 5L * 1024 * 1024,
    maxInFlightPuts = 4, maxPutRetries = 20, retryBackoffMs = 10, maxRetryBackoffMs = 100)

  private val Throttled = "ProvisionedThroughputExceededException"

  /** Record n of key k is "k:n"; rows interleave the keys, as a task's rows would. */
  private def rows(keys: Int, perKey: Int): Seq[(String, String)] =
    for (n <- 0 until perKey; k <- 0 until keys) yield (s"key$k", s"key$k:$n")

  private def write(api: FakeKinesisPutApi, s: PutSettings, data: Seq[(String, String)]): KinesisSinkCounters = {
    val counters = new KinesisSinkCounters
    val b = new PutRecordsBatcher(api, s, "fake", counters, new FakeClock(), () => 0.5)
    try {
      data.foreach { case (key, text) => b.add("s", entry(text, key)) }
      b.flush()
    } finally b.close()
    counters
  }

  /** Every key's records as the fake stored them, in the order it stored them. */
  private def storedByKey(api: FakeKinesisPutApi): Map[String, Seq[Int]] =
    api.records("s").groupBy(_.partitionKey).map { case (k, es) =>
      k -> es.map(e => FakeKinesisPutApi.text(e.data).split(':')(1).toInt)
    }

  test("throttling and partial failures in four lanes at once: each key's records stored once, in order") {
    val api = new FakeKinesisPutApi
    val random = new Random(7)
    // A fifth of the entries of the first 200 calls refused, half of them as throttling.
    api.refuse { (call, _) =>
      if (call <= 200 && random.nextDouble() < 0.2) Some(if (random.nextBoolean()) Throttled else "InternalFailure")
      else None
    }
    val counters = write(api, settings, rows(keys = 24, perKey = 60))
    storedByKey(api) shouldBe (0 until 24).map(k => s"key$k" -> (0 until 60)).toMap
    counters.recordsWritten.get shouldBe 24 * 60
    counters.putRetries.get should be > 100L
    counters.failedRecords.get shouldBe 0
    // A call never carries two records of one key: Kinesis could store the later one and refuse the earlier.
    all(api.calls.map(c => c.keys.distinct.size == c.keys.size)) shouldBe true
  }

  test("the lanes still run maxInFlightPuts calls in parallel") {
    val api = new FakeKinesisPutApi
    api.holdCalls()
    val counters = new KinesisSinkCounters
    val b =
      new PutRecordsBatcher(api, settings.copy(maxRecordsPerPut = 10), "fake", counters, new FakeClock(), () => 0.5)
    writeWhileCallsAreHeld(api, b)(rows(keys = 40, perKey = 10).foreach { case (k, t) => b.add("s", entry(t, k)) })
    api.mostCallsInFlight shouldBe 4
    storedByKey(api).values.foreach(_ shouldBe (0 until 10))
  }

  test("a record given up ends the task before any later record of its key is sent") {
    val api = new FakeKinesisPutApi
    api.refuse((_, e) => if (FakeKinesisPutApi.text(e.data) == "key3:5") Some(Throttled) else None)
    val e =
      intercept[KinesisConnectorException](write(api, settings.copy(maxPutRetries = 1), rows(keys = 8, perKey = 30)))
    e.getCondition shouldBe "KINESIS_SINK_PUT_FAILED"
    e.getMessage should include("1 records could not be written")
    storedByKey(api)("key3") shouldBe (0 until 5)
  }

  test("by default a call carries one record per key; orderPerKey false fills calls with one key's records") {
    val ordered = new FakeKinesisPutApi
    write(ordered, settings, (0 until 20).map(n => ("hot", s"hot:$n")))
    ordered.calls.map(_.records) shouldBe Seq.fill(20)(1)
    storedByKey(ordered)("hot") shouldBe (0 until 20)

    val unordered = new FakeKinesisPutApi
    write(unordered, settings.copy(orderPerKey = false), (0 until 120).map(n => ("hot", s"hot:$n")))
    unordered.calls.map(_.records).sorted shouldBe Seq(20, 50, 50)
  }

  test("without orderPerKey, several calls of one stream run at once") {
    val api = new FakeKinesisPutApi
    api.holdCalls()
    val b = new PutRecordsBatcher(api, settings.copy(orderPerKey = false, maxRecordsPerPut = 10), "fake",
      new KinesisSinkCounters, new FakeClock(), () => 0.5)
    writeWhileCallsAreHeld(api, b)((0 until 100).foreach(n => b.add("s", entry(s"hot:$n", "hot"))))
    api.records("s").size shouldBe 100
  }

  /**
   * Adds records from a writer thread while the fake holds every call; once 4 calls are held
   * at once, lets them all finish and flushes.
   */
  private def writeWhileCallsAreHeld(api: FakeKinesisPutApi, b: PutRecordsBatcher)(add: => Unit): Unit = {
    val writer = Executors.newSingleThreadExecutor()
    try {
      implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(writer)
      val writing = Future(add)
      eventually(api.callsInFlight shouldBe 4)
      api.open()
      Await.result(writing, 30.seconds)
      b.flush()
    } finally {
      b.close()
      writer.shutdownNow()
      writer.awaitTermination(10, TimeUnit.SECONDS)
    }
  }
}
