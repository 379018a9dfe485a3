package io.github.sparkkinesis.client

import java.util.concurrent.{ConcurrentHashMap, Executors, ScheduledExecutorService, ThreadFactory, TimeUnit}

/**
 * Counts the queries of this JVM that use each connection, and closes a connection's clients a
 * grace after the last one stopped (`later` runs its argument then), unless a query took the
 * connection up again meanwhile. Why wait: Spark stops a source while the tasks it kills may
 * still hold enhanced fan-out subscriptions. They end them as they finish, with a cancel sent
 * on the client; a client closed first never sends it, and Kinesis counts the subscription as
 * live, refusing the next reader of the shard. And a query started right after the last one
 * stopped keeps the open clients instead of racing their close.
 */
private[client] final class ConnectionUsers(close: ConnectionConfig => Unit, later: Runnable => Unit) {

  private val users = new ConcurrentHashMap[ConnectionConfig, Integer]()

  /** A query starts using `connection` in this JVM. */
  def acquire(connection: ConnectionConfig): Unit = users.merge(connection, 1, (a, b) => a + b)

  /** A query stopped using `connection`: its clients close after the grace, if nobody uses them then. */
  def release(connection: ConnectionConfig): Unit = {
    val left = users.computeIfPresent(connection, (_, n) => if (n <= 1) null else n - 1)
    if (left == null) later(() => closeIfUnused(connection))
  }

  // Within the map's lock for `connection`, so an acquire cannot slip in between check and close.
  private def closeIfUnused(connection: ConnectionConfig): Unit =
    users.compute(connection, (c, n) => { if (n == null) close(c); n })
}

private[client] object ConnectionUsers {
  /** Longer than a killed task takes to finish, even on a loaded machine. */
  val GraceMillis = 30000L

  /** One daemon thread for every deferred close of this JVM, started when first needed. */
  private lazy val closer: ScheduledExecutorService = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "kinesis-client-closer")
      t.setDaemon(true)
      t
    }
  })

  /** Runs `close` [[GraceMillis]] from now, on [[closer]]. */
  def afterGrace(close: Runnable): Unit = closer.schedule(close, GraceMillis, TimeUnit.MILLISECONDS)
}
