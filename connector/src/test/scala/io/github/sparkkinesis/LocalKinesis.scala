// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import java.io.File
import java.net.{ServerSocket, URI}
import java.nio.file.{Files, Path}
import java.time.Duration

import scala.jdk.CollectionConverters._
import scala.sys.process._

import software.amazon.awssdk.auth.credentials.{AwsBasicCredentials, StaticCredentialsProvider}
import software.amazon.awssdk.core.SdkBytes
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient
import software.amazon.awssdk.regions.Region
import software.amazon.awssdk.services.kinesis.KinesisClient
import software.amazon.awssdk.services.kinesis.model._

import io.github.sparkkinesis.client.{ConnectionConfig, CredentialsConfig}

/**
 * kinesis-mock started for one suite with localstack/start-kinesis.sh (Node required), on free
 * loopback ports with its own run directory, and stopped by [[stop]].
 */
final class LocalKinesis private (val runDir: Path, val plainPort: Int, val tlsPort: Int) {
  val region = "us-east-1"
  val endpoint = s"http://127.0.0.1:$plainPort"
  val accessKey = "AKIAIOSFODNN7EXAMPLE"
  val secretKey = "fake-secret"

  def connection(endpointUrl: String = endpoint): ConnectionConfig =
    ConnectionConfig(region, Some(endpointUrl), CredentialsConfig.StaticKeys(accessKey, secretKey, None))

  lazy val client: KinesisClient = KinesisClient.builder()
    .httpClientBuilder(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)))
    .region(Region.of(region))
    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
    .endpointOverride(URI.create(endpoint))
    .build()

  def createStream(name: String, shards: Int): Unit = {
    client.createStream(CreateStreamRequest.builder().streamName(name).shardCount(shards).build())
    val deadline = System.nanoTime() + 60L * 1000000000L
    while (client.describeStreamSummary(DescribeStreamSummaryRequest.builder().streamName(name).build())
        .streamDescriptionSummary().streamStatus() != StreamStatus.ACTIVE) {
      require(System.nanoTime() < deadline, s"stream $name did not become ACTIVE")
      Thread.sleep(100)
    }
  }

  /** Puts records with these payloads into the stream; returns (shardId, sequenceNumber) of each. */
  def put(stream: String, payloads: Seq[String]): Seq[(String, String)] = payloads.grouped(500).flatMap { group =>
    val entries = group.zipWithIndex.map { case (p, i) =>
      PutRecordsRequestEntry.builder().partitionKey(s"key-$i").data(SdkBytes.fromUtf8String(p)).build()
    }
    val response = client.putRecords(PutRecordsRequest.builder().streamName(stream).records(entries: _*).build())
    require(response.failedRecordCount() == 0, s"${response.failedRecordCount()} records failed")
    response.records().asScala.map(r => (r.shardId(), r.sequenceNumber()))
  }.toSeq

  def stop(): Unit = {
    client.close()
    Process(Seq(LocalKinesis.script("stop-kinesis.sh").getPath), None,
      "KINESIS_LOCAL_RUN_DIR" -> runDir.toString).!(ProcessLogger(_ => ()))
  }
}

object LocalKinesis {
  private lazy val repoRoot: File =
    Iterator.iterate(new File(".").getAbsoluteFile)(_.getParentFile).takeWhile(_ != null)
      .find(d => new File(d, "localstack/start-kinesis.sh").isFile)
      .getOrElse(throw new IllegalStateException("localstack/start-kinesis.sh not found above the working directory"))

  private def script(name: String): File = new File(repoRoot, s"localstack/$name")

  def nodeAvailable: Boolean =
    try Seq("node", "--version").!(ProcessLogger(_ => ())) == 0
    catch {
      case _: Exception => false
    }

  private def freePort(): Int = {
    val s = new ServerSocket(0)
    try s.getLocalPort
    finally s.close()
  }

  def start(): LocalKinesis = {
    val runDir = Files.createTempDirectory("kinesis-mock-")
    val (plain, tls) = (freePort(), freePort())
    val log = new StringBuilder
    val code = Process(Seq(script("start-kinesis.sh").getPath), None,
      "KINESIS_LOCAL_RUN_DIR" -> runDir.toString, "KINESIS_LOCAL_PLAIN_PORT" -> plain.toString,
      "KINESIS_LOCAL_TLS_PORT" -> tls.toString, "AWS_REGION" -> "us-east-1")
      .!(ProcessLogger(l => log.append(l).append('\n'), l => log.append(l).append('\n')))
    require(code == 0, s"kinesis-mock did not start:\n$log")
    new LocalKinesis(runDir, plain, tls)
  }
}
