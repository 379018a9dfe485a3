package io.github.sparkkinesis.prefetch

import java.io.{
  ByteArrayInputStream, ByteArrayOutputStream, InputStream, ObjectInputStream, ObjectOutputStream, ObjectStreamClass
}

import org.apache.spark.sql.kinesis.KinesisDriverEndpoint

/**
 * How a running prefetch task hands the driver the blocks it just stored, and hears whether to
 * go on: a call to the query's endpoint on the driver (see [[Prefetcher]]). Results travel as
 * Java-serialized bytes, read back with the connector's own class loader.
 */
object PrefetchReports {

  /** The driver endpoint's name for the query's stream instance. */
  def endpointName(streamInstance: String): String = s"kinesis-prefetch-$streamInstance"

  /** Sends `result` to endpoint `name`; true when the task should keep reading. */
  def send(name: String)(result: PrefetchResult): Boolean =
    KinesisDriverEndpoint.ask(name, encode(result)).headOption.contains(Continue)

  /** This JVM no longer reports for the stream instance (its query stopped). */
  def forget(streamInstance: String): Unit = KinesisDriverEndpoint.forget(endpointName(streamInstance))

  def encode(result: PrefetchResult): Array[Byte] = {
    val bytes = new ByteArrayOutputStream()
    val out = new ObjectOutputStream(bytes)
    try out.writeObject(result)
    finally out.close()
    bytes.toByteArray
  }

  def decode(bytes: Array[Byte]): PrefetchResult = {
    val in = new ConnectorObjectInput(new ByteArrayInputStream(bytes))
    try in.readObject().asInstanceOf[PrefetchResult]
    finally in.close()
  }

  def answer(keepReading: Boolean): Array[Byte] = Array(if (keepReading) Continue else Stop)

  private val Continue: Byte = 1
  private val Stop: Byte = 0

  private final class ConnectorObjectInput(in: InputStream) extends ObjectInputStream(in) {
    override def resolveClass(desc: ObjectStreamClass): Class[_] =
      try Class.forName(desc.getName, false, classOf[PrefetchResult].getClassLoader)
      catch { case _: ClassNotFoundException => super.resolveClass(desc) }
  }
}
