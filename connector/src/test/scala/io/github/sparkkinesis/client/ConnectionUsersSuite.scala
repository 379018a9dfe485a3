package io.github.sparkkinesis.client

import scala.collection.mutable

import org.scalatest.funsuite.AnyFunSuite

class ConnectionUsersSuite extends AnyFunSuite {

  private val a = ConnectionConfig("us-east-1", Some("http://localhost:1"), CredentialsConfig.DefaultChain)
  private val b = ConnectionConfig("us-east-1", Some("http://localhost:2"), CredentialsConfig.DefaultChain)

  /** ConnectionUsers whose deferred closes wait until the test runs them (the grace passing). */
  private final class Fixture {
    val closed = mutable.Buffer.empty[ConnectionConfig]
    val pending = mutable.Buffer.empty[Runnable]
    val users = new ConnectionUsers(closed += _, pending += _)
    def graceEnds(): Unit = { val due = pending.toList; pending.clear(); due.foreach(_.run()) }
  }

  test("the last query's stop closes the connection's clients only once the grace has passed") {
    val f = new Fixture
    f.users.acquire(a)
    f.users.release(a)
    assert(f.closed.isEmpty, "closed at once: a killed task could no longer end its subscription")
    f.graceEnds()
    assert(f.closed == Seq(a))
  }

  test("a query that takes the connection up within the grace keeps its clients open") {
    val f = new Fixture
    f.users.acquire(a)
    f.users.release(a)
    f.users.acquire(a)
    f.graceEnds()
    assert(f.closed.isEmpty)
    f.users.release(a)
    f.graceEnds()
    assert(f.closed == Seq(a))
  }

  test("clients stay open while another query of the JVM uses the connection, and others are not touched") {
    val f = new Fixture
    f.users.acquire(a)
    f.users.acquire(a)
    f.users.acquire(b)
    f.users.release(a)
    f.graceEnds()
    assert(f.closed.isEmpty)
    f.users.release(a)
    f.graceEnds()
    assert(f.closed == Seq(a))
  }
}
