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
      "suggestion" -> suggestion.map(s => s" Did you mean '$s'?").getOrElse(""))

  def optionNotSupportedYet(option: String, detail: String): KinesisOptionException =
    optionError("KINESIS_OPTION_NOT_SUPPORTED_YET", null, "option" -> option, "detail" -> detail)

  def conflictingOptions(options: Seq[String], detail: String): KinesisOptionException =
    optionError("KINESIS_CONFLICTING_OPTIONS", null,
      "options" -> options.map(o => s"'$o'").mkString(", "), "detail" -> detail)

  def regionUnresolved(cause: Throwable): KinesisOptionException =
    optionError("KINESIS_REGION_UNRESOLVED", cause, "cause" -> String.valueOf(cause.getMessage))

  def streamNotFound(stream: String, where: String, cause: Throwable): KinesisConnectorException =
    error("KINESIS_STREAM_NOT_FOUND", cause, "stream" -> stream, "where" -> where)

  def apiFailed(operation: String, target: String, where: String,
      cause: Throwable): KinesisConnectorException =
    error("KINESIS_API_FAILED", cause, "operation" -> operation, "target" -> target,
      "where" -> where, "reason" -> String.valueOf(cause.getMessage))

  def recordsUnavailable(shard: String, from: String, to: String,
      reason: String): KinesisConnectorException =
    error("KINESIS_RECORDS_UNAVAILABLE", null,
      "shard" -> shard, "from" -> from, "to" -> to, "reason" -> reason)

  def offsetMalformed(reason: String, example: String,
      cause: Throwable = null): KinesisConnectorException =
    error("KINESIS_OFFSET_MALFORMED", cause, "reason" -> reason, "example" -> example)

  def offsetVersionUnsupported(found: Int, supported: Int): KinesisConnectorException =
    error("KINESIS_OFFSET_VERSION_UNSUPPORTED", null,
      "found" -> found.toString, "supported" -> supported.toString)

  def optionNotApplicable(option: String, appliesTo: String, usedFor: String): KinesisOptionException =
    optionError("KINESIS_OPTION_NOT_APPLICABLE", null,
      "option" -> option, "appliesTo" -> appliesTo, "usedFor" -> usedFor)

  def sourceSchemaGiven(schema: String): KinesisOptionException =
    optionError("KINESIS_SOURCE_SCHEMA_GIVEN", null, "schema" -> schema)

  // ---- the sink: found when the write is defined ----

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
      "dataBytes" -> dataBytes.toString, "keyBytes" -> keyBytes.toString, "limit" -> limit.toString)

  /** `codes` are the Kinesis error codes with how often each was seen, e.g. "InternalFailure (3)". */
  def sinkPutFailed(failed: Long, streams: Seq[String], where: String, attempts: Int,
      codes: Seq[String]): KinesisConnectorException =
    error("KINESIS_SINK_PUT_FAILED", null, "failed" -> failed.toString,
      "streams" -> streams.map(s => s"'$s'").mkString(", "), "where" -> where,
      "attempts" -> attempts.toString, "codes" -> codes.mkString(", "))
}
