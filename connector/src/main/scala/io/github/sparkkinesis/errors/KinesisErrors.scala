// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.errors

/** One factory method per error condition, so messages stay consistent across the code. */
object KinesisErrors {
  private def error(condition: String, cause: Throwable, params: (String, String)*) =
    new KinesisConnectorException(condition, params.toMap, cause)

  private def optionError(condition: String, cause: Throwable, params: (String, String)*) =
    new KinesisOptionException(condition, params.toMap, cause)

  def missingOption(option: String, hint: String): KinesisOptionException =
    optionError("KINESIS_MISSING_OPTION", null, "option" -> option, "hint" -> hint)

  /** `shownValue` is already quoted or redacted by the caller. */
  def invalidOptionValue(option: String, shownValue: String, allowed: String,
      cause: Throwable = null): KinesisOptionException =
    optionError("KINESIS_INVALID_OPTION_VALUE", cause,
      "option" -> option, "value" -> shownValue, "allowed" -> allowed)

  def unknownOption(option: String, suggestion: Option[String]): KinesisOptionException =
    optionError("KINESIS_UNKNOWN_OPTION", null, "option" -> option,
      "suggestion" -> suggestion.map(s => DidYouMean.replace("<option>", s)).getOrElse(""))

  /** KINESIS_UNKNOWN_OPTION's suggestion, when a known option is close to the one given. */
  val DidYouMean = " Did you mean '<option>'?"

  def optionWithoutCounterpart(option: String, connector: String, advice: String): KinesisOptionException =
    optionError("KINESIS_OPTION_WITHOUT_COUNTERPART", null, "option" -> option, "connector" -> connector,
      "advice" -> advice)

  def conflictingOptions(options: Seq[String], detail: String): KinesisOptionException =
    optionError("KINESIS_CONFLICTING_OPTIONS", null,
      "options" -> options.map(o => s"'$o'").mkString(", "), "detail" -> detail)

  def regionUnresolved(cause: Throwable): KinesisOptionException =
    optionError("KINESIS_REGION_UNRESOLVED", cause, "cause" -> String.valueOf(cause.getMessage))

  def streamNotFound(stream: String, where: String, cause: Throwable): KinesisConnectorException =
    error("KINESIS_STREAM_NOT_FOUND", cause, "stream" -> stream, "where" -> where)

  def streamRecreated(stream: String, checkpointCreated: Long, currentCreated: Long): KinesisConnectorException =
    error("KINESIS_STREAM_RECREATED", null, "stream" -> stream,
      "checkpointCreated" -> java.time.Instant.ofEpochMilli(checkpointCreated).toString,
      "currentCreated" -> java.time.Instant.ofEpochMilli(currentCreated).toString)

  def apiFailed(operation: String, target: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_API_FAILED", cause, "operation" -> operation, "target" -> target,
      "where" -> where, "reason" -> String.valueOf(cause.getMessage))

  def endpointUnreachable(endpoint: String, operation: String, target: String, reason: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_ENDPOINT_UNREACHABLE", cause, "endpoint" -> endpoint, "operation" -> operation,
      "target" -> target, "reason" -> reason)

  def endpointNotKinesis(endpoint: String, operation: String, target: String, status: Int, body: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_ENDPOINT_NOT_KINESIS", cause, "endpoint" -> endpoint, "operation" -> operation,
      "target" -> target, "status" -> status.toString, "body" -> body)

  def proxyRefused(proxy: String, operation: String, target: String, credentials: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_PROXY_REFUSED", cause, "proxy" -> proxy, "operation" -> operation, "target" -> target,
      "credentials" -> credentials)

  def assumeRoleFailed(role: String, operation: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_ASSUME_ROLE_FAILED", cause, "role" -> role, "operation" -> operation, "where" -> where,
      "reason" -> String.valueOf(cause.getMessage))

  /** `action` is the IAM permission the call needs; `credentials` says which were used (no secret). */
  def accessDenied(service: String, operation: String, target: String, where: String, action: String,
      credentials: String, reason: String, cause: Throwable): KinesisConnectorException =
    error("KINESIS_ACCESS_DENIED", cause, "service" -> service, "operation" -> operation,
      "target" -> target, "where" -> where, "action" -> action, "credentials" -> credentials,
      "reason" -> reason)

  def authenticationFailed(service: String, operation: String, where: String, credentials: String,
      reason: String, cause: Throwable): KinesisConnectorException =
    error("KINESIS_AUTHENTICATION_FAILED", cause, "service" -> service, "operation" -> operation,
      "where" -> where, "credentials" -> credentials, "reason" -> reason)

  def credentialsUnavailable(operation: String, where: String, reason: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_CREDENTIALS_UNAVAILABLE", cause, "operation" -> operation, "where" -> where,
      "reason" -> reason)

  def tlsUntrusted(endpoint: String, operation: String, reason: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_TLS_UNTRUSTED", cause, "endpoint" -> endpoint, "operation" -> operation,
      "reason" -> reason)

  def recordsUnavailable(shard: String, from: String, to: String,
      reason: String): KinesisConnectorException =
    error("KINESIS_RECORDS_UNAVAILABLE", null,
      "shard" -> shard, "from" -> from, "to" -> to, "reason" -> reason)

  def dataLoss(shard: String, position: String, oldest: String): KinesisConnectorException =
    error("KINESIS_DATA_LOSS", null, "shard" -> shard, "position" -> position, "oldest" -> oldest)

  /** `checkpoint` says where the offset was read: "checkpoint /path" (see CheckpointOffsets). */
  def offsetMalformed(reason: String, example: String, cause: Throwable = null,
      checkpoint: String = "the checkpoint"): KinesisConnectorException =
    error("KINESIS_OFFSET_MALFORMED", cause, "reason" -> reason, "example" -> example, "checkpoint" -> checkpoint)

  def offsetVersionUnsupported(found: Int, supported: Int,
      checkpoint: String = "the checkpoint"): KinesisConnectorException =
    error("KINESIS_OFFSET_VERSION_UNSUPPORTED", null,
      "found" -> found.toString, "supported" -> supported.toString, "checkpoint" -> checkpoint)

  def offsetStreamMismatch(found: Seq[String], streams: Seq[String], checkpoint: String): KinesisConnectorException =
    error("KINESIS_OFFSET_STREAM_MISMATCH", null, "found" -> found.map(s => s"'$s'").mkString(", "),
      "streams" -> streams.mkString(","), "checkpoint" -> checkpoint)

  def optionNotApplicable(option: String, appliesTo: String, usedFor: String): KinesisOptionException =
    optionError("KINESIS_OPTION_NOT_APPLICABLE", null,
      "option" -> option, "appliesTo" -> appliesTo, "usedFor" -> usedFor)

  def sourceSchemaGiven(schema: String): KinesisOptionException =
    optionError("KINESIS_SOURCE_SCHEMA_GIVEN", null, "schema" -> schema)

  /** A bad argument of a SQL function (`read_kinesis`); `detail` names the argument. */
  def sqlArgumentInvalid(function: String, detail: String): KinesisOptionException =
    optionError("KINESIS_SQL_ARGUMENT_INVALID", null, "function" -> function, "detail" -> detail)

  def catalogTableUnsupported(): KinesisOptionException =
    optionError("KINESIS_CATALOG_TABLE_UNSUPPORTED", null)

  // ---- real-time mode: found when the query starts ----

  def realTimeNotEnoughSlots(
      streams: Seq[String], needed: Int, available: Int, cluster: String): KinesisConnectorException =
    error("KINESIS_REAL_TIME_NOT_ENOUGH_SLOTS", null, "streams" -> streams.map(s => s"'$s'").mkString(", "),
      "needed" -> needed.toString, "available" -> available.toString, "cluster" -> cluster)

  def optionNotInRealTime(option: String, reason: String): KinesisOptionException =
    optionError("KINESIS_OPTION_NOT_IN_REAL_TIME", null, "option" -> option, "reason" -> reason)

  // ---- the sink: found when the write is defined ----

  def sinkSaveModeUnsupported(mode: String): KinesisOptionException =
    optionError("KINESIS_SINK_SAVE_MODE_UNSUPPORTED", null, "mode" -> mode)

  def sinkMissingColumn(column: String, hint: String, columns: Seq[String]): KinesisOptionException =
    optionError("KINESIS_SINK_MISSING_COLUMN", null, "column" -> column, "hint" -> hint,
      "columns" -> columns.map(c => s"'$c'").mkString(", "))

  def sinkInvalidColumnType(column: String, found: String, allowed: String,
      hint: String): KinesisOptionException =
    optionError("KINESIS_SINK_INVALID_COLUMN_TYPE", null,
      "column" -> column, "type" -> found, "allowed" -> allowed, "hint" -> hint)

  // ---- the sink: found while writing ----

  def sinkInvalidValue(reason: String): KinesisConnectorException =
    error("KINESIS_SINK_INVALID_VALUE", null, "reason" -> reason)

  def sinkRecordTooLarge(stream: String, size: Long, dataBytes: Long, keyBytes: Long,
      limit: Long): KinesisConnectorException =
    error("KINESIS_SINK_RECORD_TOO_LARGE", null, "stream" -> stream, "size" -> size.toString,
      "dataBytes" -> dataBytes.toString, "keyBytes" -> keyBytes.toString, "limit" -> limit.toString,
      "limitKiB" -> (limit / 1024).toString)

  /** `codes` are the Kinesis error codes with how often each was seen, e.g. "InternalFailure (3)". */
  def sinkPutFailed(failed: Long, streams: Seq[String], where: String, attempts: Int,
      codes: Seq[String]): KinesisConnectorException =
    error("KINESIS_SINK_PUT_FAILED", null, "failed" -> failed.toString,
      "streams" -> streams.map(s => s"'$s'").mkString(", "), "where" -> where,
      "attempts" -> attempts.toString, "codes" -> codes.mkString(", "))

  /** Conditions a retry can fix (a passing service fault); the others end the query at once. */
  // A deleted consumer is registered again by the driver (EfoConsumers) before the next rounds.
  private val Retryable = Set("KINESIS_API_FAILED", "KINESIS_ENDPOINT_UNREACHABLE", "KINESIS_EFO_CONSUMER_DELETED")

  def isRetryable(error: KinesisError): Boolean = Retryable.contains(error.getCondition)

  // ---- enhanced fan-out ----

  /** An IllegalArgumentException: the caller named the consumer. */
  def efoConsumerNameInvalid(name: String, reason: String): KinesisOptionException =
    optionError("KINESIS_EFO_CONSUMER_NAME_INVALID", null, "name" -> name, "reason" -> reason)

  def efoConsumerNotActive(stream: String, consumer: String, timeout: String, status: String,
      where: String): KinesisConnectorException =
    error("KINESIS_EFO_CONSUMER_NOT_ACTIVE", null, "stream" -> stream, "consumer" -> consumer,
      "timeout" -> timeout, "status" -> status, "where" -> where)

  def efoConsumerNotFound(stream: String, consumer: String, where: String): KinesisConnectorException =
    error("KINESIS_EFO_CONSUMER_NOT_FOUND", null, "stream" -> stream, "consumer" -> consumer, "where" -> where)

  def efoConsumerArnUnusable(option: String, consumer: String, stream: String, reason: String,
      where: String): KinesisConnectorException =
    error("KINESIS_EFO_CONSUMER_ARN_UNUSABLE", null, "option" -> option, "consumer" -> consumer, "stream" -> stream,
      "reason" -> reason, "where" -> where)

  def efoConsumerLimit(stream: String, consumer: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_EFO_CONSUMER_LIMIT", cause, "stream" -> stream, "consumer" -> consumer,
      "where" -> where, "reason" -> String.valueOf(cause.getMessage))

  def efoSubscriptionFailed(shard: String, consumer: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_EFO_SUBSCRIPTION_FAILED", cause, "shard" -> shard, "consumer" -> consumer,
      "where" -> where, "reason" -> describe(cause))

  /** Whether `e` says the query's EFO consumer was deregistered behind its back ([[efoConsumerDeleted]]). */
  def isEfoConsumerDeleted(e: Throwable): Boolean = e match {
    case k: KinesisError => k.getCondition == "KINESIS_EFO_CONSUMER_DELETED"
    case _ => false
  }

  def efoConsumerDeleted(shard: String, consumer: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_EFO_CONSUMER_DELETED", cause, "shard" -> shard, "consumer" -> consumer,
      "where" -> where, "reason" -> describe(cause))

  def efoSubscriptionInUse(shard: String, consumer: String, attempts: Int,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_EFO_SUBSCRIPTION_IN_USE", cause, "shard" -> shard, "consumer" -> consumer,
      "attempts" -> attempts.toString, "reason" -> describe(cause))

  /** The exception's simple class name and message: SDK messages alone often omit what failed. */
  private def describe(cause: Throwable): String =
    s"${cause.getClass.getSimpleName}: ${String.valueOf(cause.getMessage)}"
}
