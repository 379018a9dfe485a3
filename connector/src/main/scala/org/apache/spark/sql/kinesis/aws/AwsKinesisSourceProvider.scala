// SPDX-License-Identifier: Apache-2.0
package org.apache.spark.sql.kinesis.aws

import io.github.sparkkinesis.KinesisSourceProvider

/**
 * `format("aws-kinesis")`, the name awslabs' connector registers: the same source and sink as
 * `format("kinesis")`, so its users' queries (with its option names, read as aliases) run
 * unchanged. It lives under `org.apache.spark` because of how Spark picks among providers of
 * one name: when exactly one of them is under `org.apache.spark` (awslabs' is), Spark takes it
 * and only logs a warning. With this one there too, a classpath that holds both jars fails each
 * `aws-kinesis` query with Spark's "Multiple sources found for aws-kinesis", naming both
 * classes, instead of silently reading with whichever connector that rule favours.
 */
final class AwsKinesisSourceProvider extends KinesisSourceProvider {
  override def shortName(): String = "aws-kinesis"
}
