// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis

import java.util.concurrent.ConcurrentHashMap

import org.apache.spark.SparkEnv
import org.apache.spark.rpc.{IsolatedThreadSafeRpcEndpoint, RpcCallContext, RpcEndpointRef, RpcEnv}
import org.apache.spark.util.RpcUtils

/**
 * A named endpoint on the driver that tasks call while they run: they send bytes, the driver
 * answers with bytes. Prefetch tasks hand over their blocks this way as soon as they are stored,
 * so a round need not end for the driver to learn of them. Spark's RPC is `private[spark]`,
 * hence this object's package. Messages are plain bytes so that no connector class has to be
 * found by Spark's RPC threads.
 */
object KinesisDriverEndpoint {
  // Executor side: the driver's endpoints this JVM called, by name.
  private val refs = new ConcurrentHashMap[String, RpcEndpointRef]()

  /**
   * Starts endpoint `name` on the driver; `handle` runs on a thread of its own, one message at
   * a time. Closing the answer stops the endpoint; calls still waiting then fail.
   */
  def register(name: String, handle: Array[Byte] => Array[Byte]): AutoCloseable = {
    val env = SparkEnv.get.rpcEnv
    val ref = env.setupEndpoint(name,
      new IsolatedThreadSafeRpcEndpoint {
        override val rpcEnv: RpcEnv = env
        override def receiveAndReply(context: RpcCallContext): PartialFunction[Any, Unit] = {
          case message: Array[Byte] => context.reply(handle(message))
        }
      })
    () => env.stop(ref)
  }

  /** Calls endpoint `name` on the driver from a task and waits for its answer. */
  def ask(name: String, message: Array[Byte]): Array[Byte] = {
    val env = SparkEnv.get
    refs.computeIfAbsent(name, n => RpcUtils.makeDriverRef(n, env.conf, env.rpcEnv)).askSync[Array[Byte]](message)
  }

  /** This executor no longer calls endpoint `name`. */
  def forget(name: String): Unit = refs.remove(name)
}
