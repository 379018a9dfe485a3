// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

/**
 * `format("aws-kinesis")`, the name awslabs' connector registers: the same source and sink as
 * `format("kinesis")`, so its users' queries (with its option names, read as aliases) run
 * unchanged. With awslabs' jar on the classpath too, two providers share the name and Spark
 * picks awslabs' (its class is under `org.apache.spark`, which Spark prefers), logging a warning
 * that names both; `format("kinesis")` then picks this connector.
 */
final class AwsKinesisSourceProvider extends KinesisSourceProvider {
  override def shortName(): String = "aws-kinesis"
}
