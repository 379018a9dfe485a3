// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.sdk

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers
import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}

class ClientCacheSuite extends AnyFunSuite with Matchers {

  private final class FakeClient(val connection: ConnectionConfig) extends AutoCloseable {
    var closed = false
    override def close(): Unit = closed = true
  }

  private class Setup(maxClients: Int = 3, idleMillis: Long = 1000L) {
    var time = 0L
    val built = mutable.Buffer.empty[FakeClient]
    val cache = new ClientCache[FakeClient]("fake", c => { val f = new FakeClient(c); built += f; f },
      maxClients, idleMillis, () => time)
  }

  private def connection(region: String) = ConnectionConfig(region, None, CredentialsConfig.DefaultChain)

  test("one client per connection, reused") {
    val s = new Setup()
    s.cache.get(connection("us-east-1")) should be theSameInstanceAs s.cache.get(connection("us-east-1"))
    s.cache.get(connection("eu-west-1")).connection shouldBe connection("eu-west-1")
    s.built.size shouldBe 2
  }

  test("bounded: one more client closes the least recently used") {
    val s = new Setup(maxClients = 2)
    val a = s.cache.get(connection("a"))
    s.cache.get(connection("b"))
    s.cache.get(connection("a")) // b is now the least recently used
    s.cache.get(connection("c"))
    s.cache.size shouldBe 2
    s.built.filter(_.closed).map(_.connection) shouldBe Seq(connection("b"))
    s.cache.get(connection("a")) should be theSameInstanceAs a
  }

  test("a client not asked for while idle is closed; the next call builds a new one") {
    val s = new Setup(idleMillis = 1000L)
    val a = s.cache.get(connection("a"))
    s.time = 999L
    s.cache.get(connection("b"))
    a.closed shouldBe false
    s.time = 1000L
    s.cache.get(connection("b"))
    a.closed shouldBe true
    val again = s.cache.get(connection("a"))
    again should not be theSameInstanceAs(a)
    again.closed shouldBe false
  }

  test("a client closed by an interrupted thread closes uninterrupted, and the thread stays interrupted") {
    var interruptedWhileClosing: Option[Boolean] = None
    val cache = new ClientCache[AutoCloseable]("fake",
      _ => () => interruptedWhileClosing = Some(Thread.currentThread().isInterrupted))
    cache.get(connection("a"))
    Thread.currentThread().interrupt()
    try cache.close(connection("a"))
    finally Thread.interrupted() shouldBe true // and clears the flag for the next test
    interruptedWhileClosing shouldBe Some(false)
  }

  test("close ends a connection's client at once") {
    val s = new Setup()
    val a = s.cache.get(connection("a"))
    s.cache.close(connection("a"))
    a.closed shouldBe true
    s.cache.size shouldBe 0
  }
}
