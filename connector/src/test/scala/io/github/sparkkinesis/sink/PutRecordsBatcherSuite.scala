// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.sink

import java.util.concurrent.{Executors, TimeUnit}
import java.util.concurrent.atomic.AtomicReference

import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration._

import org.scalatest.concurrent.Eventually
import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.{FakeClock, FakeKinesisPutApi}
import io.github.sparkkinesis.FakeKinesisPutApi.{entry, sized}
import io.github.sparkkinesis.errors.KinesisConnectorException
import io.github.sparkkinesis.options.PutSettings

class PutRecordsBatcherSuite extends AnyFunSuite with Matchers with Eventually {
  // Waits of up to 10 s for what other threads do, checked every 20 ms.
  implicit override val patienceConfig: PatienceConfig = PatienceConfig(timeout = 10.seconds, interval = 20.millis)

  private val defaults = PutSettings(maxRecordsPerPut = 500, maxBytesPerPut = 5L * 1024 * 1024,
    maxInFlightPuts = 4, maxPutRetries = 10, retryBackoffMs = 100, maxRetryBackoffMs = 5000)

  private final class Fixture(val settings: PutSettings = defaults, jitter: Double = 0.5) {
    val api = new FakeKinesisPutApi
    val clock = new FakeClock()
    val counters = new KinesisSinkCounters
    val batcher = new PutRecordsBatcher(api, settings, "endpoint http://fake, region us-east-1", counters,
      clock, () => jitter)

    def write(stream: String, texts: Seq[String]): Unit = texts.foreach(t => batcher.add(stream, entry(t)))

    def run(body: PutRecordsBatcher => Unit): Unit =
      try body(batcher)
      finally batcher.close()
  }

  private def texts(prefix: String, n: Int): Seq[String] = (0 until n).map(i => s"$prefix-$i")

  // ---- batching within the limits ----

  test("records go out in calls of at most 500, in order, the rest when flushed") {
    val f = new Fixture(defaults.copy(maxInFlightPuts = 1))
    f.run { b =>
      f.write("s", texts("r", 1200))
      // Full groups go at once; once both calls are finished and taken in, nothing else was
      // started: the last 200 wait for the flush (the fake clock never lets them linger).
      eventually(b.callsInFlight shouldBe 0)
      f.api.calls.map(_.records) shouldBe Seq(500, 500)
      b.flush()
    }
    f.api.calls.map(_.records) shouldBe Seq(500, 500, 200)
    f.api.texts("s") shouldBe texts("r", 1200)
    f.counters.putRequests.get shouldBe 3
  }

  test("a call carries at most 5 MiB of data and partition keys") {
    val f = new Fixture(defaults.copy(maxInFlightPuts = 1))
    val mib = 1024 * 1024
    f.run { b =>
      (1 to 12).foreach(i => b.add("s", sized(mib, s"k$i")))
      b.flush()
    }
    f.api.calls.map(_.records).sorted shouldBe Seq(2, 5, 5)
    all(f.api.calls.map(_.bytes)) should be <= 5L * mib
    f.counters.bytesWritten.get shouldBe 12L * mib
  }

  test("a record that does not fit in the current call starts the next one") {
    val f = new Fixture(defaults.copy(maxBytesPerPut = 1000, maxInFlightPuts = 1))
    f.run { b =>
      Seq(400, 400, 300, 999, 1).zip("abcde").foreach { case (size, key) => b.add("s", sized(size, key.toString)) }
      b.flush()
    }
    f.api.calls.map(_.bytes) shouldBe Seq(800, 300, 1000)
  }

  test("a record larger than maxBytesPerPut goes alone") {
    val f = new Fixture(defaults.copy(maxBytesPerPut = 1000, maxInFlightPuts = 1))
    f.run { b =>
      Seq(10, 5000, 10).zip("abc").foreach { case (size, key) => b.add("s", sized(size, key.toString)) }
      b.flush()
    }
    f.api.calls.map(_.bytes) shouldBe Seq(10, 5000, 10)
  }

  test("maxRecordsPerPut makes smaller calls") {
    val f = new Fixture(defaults.copy(maxRecordsPerPut = 7, maxInFlightPuts = 1))
    f.run { b =>
      f.write("s", texts("r", 30))
      b.flush()
    }
    f.api.calls.map(_.records) shouldBe Seq(7, 7, 7, 7, 2)
  }

  test("each stream gets its own calls") {
    val f = new Fixture(defaults.copy(maxInFlightPuts = 1))
    f.run { b =>
      f.write("a", texts("a", 3))
      f.write("b", texts("b", 2))
      f.write("a", texts("a2", 1))
      b.flush()
    }
    f.api.calls.map(c => c.stream -> c.records).sorted shouldBe Seq("a" -> 4, "b" -> 2)
    f.api.texts("a") shouldBe texts("a", 3) ++ texts("a2", 1)
    f.api.texts("b") shouldBe texts("b", 2)
  }

  test("flush with nothing queued makes no call") {
    val f = new Fixture()
    f.run(_.flush())
    f.api.calls shouldBe empty
  }

  // ---- calls in flight ----

  test("at most maxInFlightPuts calls run at once, and the writer waits for a free one") {
    val f = new Fixture(defaults.copy(maxRecordsPerPut = 10, maxInFlightPuts = 3))
    f.api.holdCalls()
    val writerThread = new AtomicReference[Thread]()
    val writer = Executors.newSingleThreadExecutor { r: Runnable =>
      val t = new Thread(r, "writer")
      writerThread.set(t)
      t
    }
    try {
      implicit val ec: ExecutionContext = ExecutionContext.fromExecutor(writer)
      val writing = Future(f.write("s", texts("r", 100)))
      eventually(f.api.callsInFlight shouldBe 3)
      // The writer waits (for a free call) or has finished; it must be waiting: the fourth full
      // group has no call to go in.
      eventually(writerThread.get.getState shouldBe Thread.State.WAITING)
      writing.isCompleted shouldBe false
      f.api.callsInFlight shouldBe 3
      f.api.open()
      Await.result(writing, 30.seconds)
      f.batcher.flush()
    } finally {
      f.batcher.close()
      writer.shutdownNow()
      writer.awaitTermination(10, TimeUnit.SECONDS)
    }
    f.api.mostCallsInFlight shouldBe 3
    f.api.records("s").size shouldBe 100
  }

  test("with one call in flight, the records of a partition key arrive in order") {
    val f = new Fixture(defaults.copy(maxRecordsPerPut = 3, maxInFlightPuts = 1))
    f.run { b =>
      f.write("s", texts("r", 50))
      b.flush()
    }
    f.api.mostCallsInFlight shouldBe 1
    f.api.texts("s") shouldBe texts("r", 50)
  }

  // ---- retries ----

  test("refused records are sent again until Kinesis takes them, and counted") {
    val f = new Fixture(defaults.copy(maxInFlightPuts = 1))
    // Calls 1 and 2 refuse every third record for throttling; later calls take everything.
    f.api.refuse { (call, e) =>
      val i = new String(e.data).stripPrefix("r-").toInt
      if (call <= 2 && i % 3 == 0) Some("ProvisionedThroughputExceededException") else None
    }
    f.run { b =>
      f.write("s", texts("r", 30))
      b.flush()
    }
    f.api.texts("s").sorted shouldBe texts("r", 30).sorted
    f.api.calls.map(_.records) shouldBe Seq(30, 10, 10) // The retries go before anything else of the lane.
    f.counters.putRetries.get shouldBe 20
    f.counters.throttledRecords.get shouldBe 20
    f.counters.recordsWritten.get shouldBe 30
    f.counters.failedRecords.get shouldBe 0
  }

  test("InternalFailure is retried but not counted as throttling") {
    val f = new Fixture(defaults.copy(maxInFlightPuts = 1))
    f.api.refuse((call, _) => if (call == 1) Some("InternalFailure") else None)
    f.run { b =>
      f.write("s", texts("r", 5))
      b.flush()
    }
    f.api.records("s").size shouldBe 5
    f.counters.putRetries.get shouldBe 5
    f.counters.throttledRecords.get shouldBe 0
  }

  test("the back-off doubles from putRetryBackoff up to maxPutRetryBackoff, with equal jitter") {
    val f = new Fixture(defaults.copy(retryBackoffMs = 100, maxRetryBackoffMs = 1000), jitter = 0.0)
    f.batcher.backoffMs(0) shouldBe 50
    f.batcher.backoffMs(1) shouldBe 100
    f.batcher.backoffMs(2) shouldBe 200
    f.batcher.backoffMs(3) shouldBe 400
    f.batcher.backoffMs(4) shouldBe 500
    f.batcher.backoffMs(100) shouldBe 500
    val top = new Fixture(defaults.copy(retryBackoffMs = 100, maxRetryBackoffMs = 1000), jitter = 0.999999)
    top.batcher.backoffMs(0) shouldBe 99
    top.batcher.backoffMs(10) shouldBe 999
    f.batcher.close()
    top.batcher.close()
  }

  test("retries wait their back-off before going out again") {
    val f = new Fixture(defaults.copy(retryBackoffMs = 100, maxRetryBackoffMs = 10000), jitter = 0.5)
    f.api.refuse((call, _) => if (call <= 3) Some("ProvisionedThroughputExceededException") else None)
    f.run { b =>
      f.write("s", texts("r", 1))
      b.flush()
    }
    f.clock.totalSleptMillis shouldBe (75 + 150 + 300)
  }

  test("records still refused after maxPutRetries fail the task with their count and error codes") {
    val f = new Fixture(defaults.copy(maxPutRetries = 2))
    f.api.refuse { (_, e) =>
      val i = new String(e.data).stripPrefix("r-").toInt
      if (i < 4) Some("ProvisionedThroughputExceededException") else if (i == 4) Some("InternalFailure") else None
    }
    val e = intercept[KinesisConnectorException] {
      f.run { b =>
        f.write("orders", texts("r", 25))
        b.flush()
      }
    }
    e.getCondition shouldBe "KINESIS_SINK_PUT_FAILED"
    e.getMessage should include("5 records could not be written")
    e.getMessage should include("'orders'")
    e.getMessage should include("after up to 3 attempts")
    e.getMessage should include("ProvisionedThroughputExceededException (4)")
    e.getMessage should include("InternalFailure (1)")
    e.getMessage should include("maxPutRetries")
    // Nothing dropped silently: every record is either stored or counted as failed.
    f.api.records("orders").size shouldBe 20
    f.counters.failedRecords.get shouldBe 5
    f.counters.recordsWritten.get shouldBe 20
    f.counters.putRetries.get shouldBe 10
  }

  test("maxPutRetries 0 gives up on the first refusal") {
    val f = new Fixture(defaults.copy(maxPutRetries = 0))
    f.api.refuse((_, _) => Some("ProvisionedThroughputExceededException"))
    val e = intercept[KinesisConnectorException](f.run { b => f.write("s", texts("r", 3)); b.flush() })
    e.getMessage should include("3 records could not be written")
    f.api.calls.map(_.records).sum shouldBe 3 // Each record sent once, in whichever lane its key takes.
    f.counters.putRetries.get shouldBe 0
  }

  test("a refusal that a retry cannot change fails at once") {
    val f = new Fixture()
    f.api.refuse((_, _) => Some("KMSAccessDeniedException"))
    val e = intercept[KinesisConnectorException](f.run { b => f.write("s", texts("r", 2)); b.flush() })
    e.getMessage should include("KMSAccessDeniedException (2)")
    e.getMessage should include("after up to 1 attempts")
    f.api.calls.map(_.records).sum shouldBe 2
  }

  test("once records were given up, the next full call fails the task instead of sending more") {
    val f = new Fixture(defaults.copy(maxPutRetries = 0, maxInFlightPuts = 1, maxRecordsPerPut = 5))
    f.api.refuse((call, _) => if (call == 1) Some("InternalFailure") else None)
    intercept[KinesisConnectorException](f.run(_ => f.write("s", texts("r", 50))))
    f.api.calls.size should be < 10
  }

  test("a call that fails as a whole fails the task with that error, untouched") {
    val f = new Fixture()
    val missing = new KinesisConnectorException("KINESIS_STREAM_NOT_FOUND",
      Map("stream" -> "nope", "where" -> "region us-east-1"))
    f.api.failEveryCall(missing)
    val e = intercept[KinesisConnectorException](f.run { b => f.write("nope", texts("r", 2)); b.flush() })
    e should be theSameInstanceAs missing
  }

  test("abort drops what is queued and close ends the threads") {
    val f = new Fixture(defaults.copy(maxRecordsPerPut = 5))
    f.write("s", texts("r", 7))
    f.batcher.abort()
    f.batcher.close()
    f.batcher.flush() // Nothing left to send.
    f.api.records("s").size should be <= 5
  }

  // ---- maxPutLinger: records that come slowly are not held back ----

  test("a lane whose oldest record waited maxPutLinger is sent as it is; a younger one waits") {
    val f = new Fixture(defaults.copy(maxPutLingerMs = 50, maxInFlightPuts = 1))
    f.run { b =>
      f.write("old", texts("o", 3))
      f.clock.advanceMillis(30)
      f.write("young", texts("y", 2))
      f.clock.advanceMillis(20)
      b.sendLingering()
      eventually(f.api.calls.map(c => c.stream -> c.records) shouldBe Seq("old" -> 3))
      f.clock.advanceMillis(30)
      b.sendLingering()
      eventually(f.api.calls.map(c => c.stream -> c.records) shouldBe Seq("old" -> 3, "young" -> 2))
      b.flush()
    }
    f.api.texts("old") shouldBe texts("o", 3)
  }

  test("the linger timer sends a lone record without a flush") {
    val f = new Fixture(defaults.copy(maxPutLingerMs = 20))
    f.run { b =>
      f.write("s", Seq("alone"))
      f.clock.advanceMillis(25) // the fake clock ages the group; the timer runs on its own
      eventually(f.api.texts("s") shouldBe Seq("alone"))
      b.flush()
    }
    f.api.calls should have size 1
  }
}
