# SPDX-License-Identifier: Apache-2.0
# Written by python/tools/generate_builders.py from _registry.json (make docs-options): do not edit.
"""The options builders' setters, one per option of the registry, by where the option applies."""

from __future__ import annotations

from pyspark_kinesis import _checks
from pyspark_kinesis._checks import NameList
from pyspark_kinesis._option_map import Builder, OptionMap
from pyspark_kinesis._units import ByteSize, Duration


class SharedSetters(OptionMap):
    """The setters of options that apply to reading and writing."""

    def region(self: Builder, region: str) -> Builder:
        """``region``: AWS region of the streams; must be a region that exists (see Authentication).

        A non-empty string.
        """
        return self._set("region", _checks.non_empty_str("region", region))

    def endpoint(self: Builder, endpoint: str) -> Builder:
        """``endpoint``: Kinesis endpoint URL (http:// or https://): VPC or FIPS endpoints, local Kinesis.

        A non-empty string.
        """
        return self._set("endpoint", _checks.non_empty_str("endpoint", endpoint))

    def aws_access_key(self: Builder, access_key: str) -> Builder:
        """``awsAccessKey``: AWS access key id; with awsSecretKey. Takes precedence over the default chain; with
        roleArn, the keys the role is assumed with.

        A non-empty string. Redacted in ``repr()``.
        """
        return self._set("awsAccessKey", _checks.non_empty_str("awsAccessKey", access_key))

    def aws_secret_key(self: Builder, secret_key: str) -> Builder:
        """``awsSecretKey``: AWS secret access key matching awsAccessKey.

        A non-empty string. Redacted in ``repr()``.
        """
        return self._set("awsSecretKey", _checks.non_empty_str("awsSecretKey", secret_key))

    def aws_session_token(self: Builder, session_token: str) -> Builder:
        """``awsSessionToken``: Session token, for temporary keys.

        A non-empty string. Redacted in ``repr()``.
        """
        return self._set("awsSessionToken", _checks.non_empty_str("awsSessionToken", session_token))

    def role_arn(self: Builder, arn: str) -> Builder:
        """``roleArn``: IAM role to assume through STS, with the keys above if given, else with the default chain;
        renewed before it expires.

        A non-empty string.
        """
        return self._set("roleArn", _checks.non_empty_str("roleArn", arn))

    def role_external_id(self: Builder, external_id: str) -> Builder:
        """``roleExternalId``: External id for roleArn, if the role's trust policy asks for one.

        A non-empty string.
        """
        return self._set("roleExternalId", _checks.non_empty_str("roleExternalId", external_id))

    def role_session_name(self: Builder, session_name: str) -> Builder:
        """``roleSessionName``: Session name for roleArn (shows in CloudTrail).

        A non-empty string (default ``spark-kinesis``).
        """
        return self._set("roleSessionName", _checks.non_empty_str("roleSessionName", session_name))

    def sts_endpoint(self: Builder, endpoint: str) -> Builder:
        """``stsEndpoint``: STS endpoint URL for roleArn (VPC, FIPS, local STS).

        A non-empty string.
        """
        return self._set("stsEndpoint", _checks.non_empty_str("stsEndpoint", endpoint))

    def profile(self: Builder, name: str) -> Builder:
        """``profile``: A named profile of the AWS shared credentials and config files (``~/.aws/credentials``,
        ``~/.aws/config``, or where AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE point) of the driver and each
        executor; read again when the files change, so keys rotated in place are used without a restart. Instead of
        the keys options; with roleArn, the credentials the role is assumed with.

        A non-empty string.
        """
        return self._set("profile", _checks.non_empty_str("profile", name))

    def aws_credentials_provider(self: Builder, class_name: str) -> Builder:
        """``awsCredentialsProvider``: A class implementing the AWS SDK v2's ``AwsCredentialsProvider`` that supplies
        the credentials, built in the driver and each executor: with a public constructor taking
        awsCredentialsProviderSecret (a String) or a static ``create(String)`` when that is given, else a public no-
        argument constructor or a static ``create()``. Compiled against the SDK as published or against the
        connector's jar, either works; the SDK's own providers may be named too. Instead of the keys options and
        profile; with roleArn, the credentials the role is assumed with. See Authentication.

        A non-empty string.
        """
        return self._set("awsCredentialsProvider", _checks.non_empty_str("awsCredentialsProvider", class_name))

    def aws_credentials_provider_secret(self: Builder, parameter: str) -> Builder:
        """``awsCredentialsProviderSecret``: The String awsCredentialsProvider is built with (its constructor's or
        ``create``'s argument), treated as a secret: masked in logs, errors and plans (its name matches Spark's
        default spark.redaction.regex).

        A non-empty string. Redacted in ``repr()``.
        """
        return self._set(
            "awsCredentialsProviderSecret", _checks.non_empty_str("awsCredentialsProviderSecret", parameter)
        )

    def proxy_host(self: Builder, host: str) -> Builder:
        """``proxyHost``: Host name or IP address of an HTTP proxy every AWS call goes through (Kinesis, enhanced fan-
        out, STS), with proxyPort; https endpoints are reached through CONNECT tunnels. Without it, the JVM's and
        the AWS SDK's own proxy settings apply.

        A non-empty string.
        """
        return self._set("proxyHost", _checks.non_empty_str("proxyHost", host))

    def proxy_port(self: Builder, port: int) -> Builder:
        """``proxyPort``: Port of proxyHost.

        An integer from 1 to 65535.
        """
        return self._set("proxyPort", _checks.int_option("proxyPort", port))

    def proxy_username(self: Builder, username: str) -> Builder:
        """``proxyUsername``: User name for the proxy's Basic authentication, with proxyPassword.

        A non-empty string.
        """
        return self._set("proxyUsername", _checks.non_empty_str("proxyUsername", username))

    def proxy_password(self: Builder, password: str) -> Builder:
        """``proxyPassword``: Password for the proxy's Basic authentication; kept secret.

        A non-empty string. Redacted in ``repr()``.
        """
        return self._set("proxyPassword", _checks.non_empty_str("proxyPassword", password))


class SourceSetters(SharedSetters):
    """The setters of options that apply to reading only."""

    def stream_name(self: Builder, names: NameList) -> Builder:
        """``streamName``: Comma-separated list of stream names to read.

        One name, several as a sequence or a comma-separated string.
        """
        return self._set("streamName", _checks.name_list("streamName", names))

    def stream_arn(self: Builder, arns: NameList) -> Builder:
        """``streamARN``: The streams to read by ARN instead of by name, one or a comma-separated list
        (``arn:aws:kinesis:us-east-1:123456789012:stream/orders``); the region comes from the ARNs, which must share
        one; every call names the stream by its ARN, so another account's stream is the one read: through
        ``roleArn`` (a role of that account) or through the stream's resource policy with your own credentials.

        One name, several as a sequence or a comma-separated string.
        """
        return self._set("streamARN", _checks.name_list("streamARN", arns))

    def max_records_per_fetch(self: Builder, records: int) -> Builder:
        """``maxRecordsPerFetch``: Records asked for per GetRecords call; also the most user records (KPL aggregates
        hold many) a prefetch fetch hands out, in both modes.

        An integer from 1 to 10000 (default ``10000``).
        """
        return self._set("maxRecordsPerFetch", _checks.int_option("maxRecordsPerFetch", records))

    def max_fetch_rate(self: Builder, mb_per_second: float) -> Builder:
        """``maxFetchRate``: Read rate limit per shard in MiB/s (Kinesis allows 2 MiB/s per shard, which 2.0 reads).

        A number above 0 and at most 2.0 (default ``1.0``).
        """
        return self._set("maxFetchRate", _checks.decimal_option("maxFetchRate", mb_per_second))

    def min_fetch_period(self: Builder, period: Duration) -> Builder:
        """``minFetchPeriod``: Shortest wait between GetRecords calls on a shard (Kinesis allows 5 calls/s).

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), from 200ms to 1h (default ``400ms``).
        """
        return self._set("minFetchPeriod", _checks.duration_option("minFetchPeriod", period))

    def max_fetch_duration(self: Builder, duration: Duration) -> Builder:
        """``maxFetchDuration``: How long a prefetch task reads before its records are made available (lower it, e.g.
        200ms, for latency).

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), positive and at most 1h (default
        ``10s``).
        """
        return self._set("maxFetchDuration", _checks.duration_option("maxFetchDuration", duration))

    def fetch_buffer_size(self: Builder, size: ByteSize) -> Builder:
        """``fetchBufferSize``: How much prefetched data may wait for the query; prefetching pauses above it (a
        stopping condition, not a hard bound).

        A size (bytes, or a string such as ``512kb`` or ``10mb``), above 0 (default ``20gb``).
        """
        return self._set("fetchBufferSize", _checks.size_option("fetchBufferSize", size))

    def shards_per_task(self: Builder, shards: int) -> Builder:
        """``shardsPerTask``: Shards one prefetching task reads, at least. Give the cluster no fewer than 2 × shards /
        shardsPerTask cores so prefetching and the query run side by side; with fewer, tasks take more shards each,
        so that prefetching needs at most half of the task slots.

        An integer from 1 to 10000 (default ``5``).
        """
        return self._set("shardsPerTask", _checks.int_option("shardsPerTask", shards))

    def shard_fetch_interval(self: Builder, interval: Duration) -> Builder:
        """``shardFetchInterval``: How often shards are listed while a reshard is under way (a shard the query reads
        has closed), to follow it; otherwise once a minute, or this often if longer.

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), positive and at most 1h (default
        ``1s``).
        """
        return self._set("shardFetchInterval", _checks.duration_option("shardFetchInterval", interval))

    def coalesce_threshold_block_size(self: Builder, size: int) -> Builder:
        """``coalesceThresholdBlockSize``: When prefetched blocks average less than this many bytes, a batch packs
        several shards into one task.

        An integer of at least 1 (default ``10000000``).
        """
        return self._set("coalesceThresholdBlockSize", _checks.int_option("coalesceThresholdBlockSize", size))

    def coalesce_bin_size(self: Builder, size: int) -> Builder:
        """``coalesceBinSize``: The bytes a packed task aims for.

        An integer of at least 1 (default ``128000000``).
        """
        return self._set("coalesceBinSize", _checks.int_option("coalesceBinSize", size))

    def max_records_per_trigger(self: Builder, records: int) -> Builder:
        """``maxRecordsPerTrigger``: The most records (KPL user records) a micro-batch reads, as Kafka's
        maxOffsetsPerTrigger: shared fairly among the shards that have records, parents before children. Honoured by
        Trigger.AvailableNow (several batches up to the end fixed at its start); not in real-time mode.

        An integer of at least 1.
        """
        return self._set("maxRecordsPerTrigger", _checks.int_option("maxRecordsPerTrigger", records))

    def max_bytes_per_trigger(self: Builder, size: ByteSize) -> Builder:
        """``maxBytesPerTrigger``: The most record bytes (data plus partition keys) a micro-batch reads, shared as
        maxRecordsPerTrigger is. A batch holds at least one record, however large.

        A size (bytes, or a string such as ``512kb`` or ``10mb``), above 0.
        """
        return self._set("maxBytesPerTrigger", _checks.size_option("maxBytesPerTrigger", size))

    def max_records_per_shard_per_trigger(self: Builder, records: int) -> Builder:
        """``maxRecordsPerShardPerTrigger``: The most records a micro-batch reads from any one shard.

        An integer of at least 1.
        """
        return self._set("maxRecordsPerShardPerTrigger", _checks.int_option("maxRecordsPerShardPerTrigger", records))

    def consumer_mode(self: Builder, mode: str) -> Builder:
        """``consumerMode``: ``polling`` (GetRecords, the shard's 2 MB/s shared with other readers) or ``efo``
        (enhanced fan-out: a registered consumer with its own 2 MB/s per shard).

        One of ``"polling"``, ``"efo"`` (default ``polling``).
        """
        return self._set("consumerMode", _checks.registry_choice("consumerMode", mode))

    def require_consumer_deregistration(self: Builder, required: bool) -> Builder:
        """``requireConsumerDeregistration``: Deregister the EFO consumer on query stop.

        ``True`` or ``False`` (default ``false``).
        """
        return self._set("requireConsumerDeregistration", _checks.boolean("requireConsumerDeregistration", required))

    def fail_on_data_loss(self: Builder, fail: bool) -> Builder:
        """``failOnDataLoss``: Fail the query (``KINESIS_DATA_LOSS``) when records it still had to read were deleted by
        retention first; ``false`` logs it, counts it in ``dataLossEvents`` and goes on from the oldest record left.
        See KPL and data loss.

        ``True`` or ``False`` (default ``true``).
        """
        return self._set("failOnDataLoss", _checks.boolean("failOnDataLoss", fail))

    def out_of_range_user_records(self: Builder, policy: str) -> Builder:
        """``outOfRangeUserRecords``: What becomes of user records of a KPL aggregate whose hash key lies outside the
        shard holding it. ``keep``: every one is read (the AWS aggregation libraries mix keys in one aggregate on
        purpose), except those its producer marked as written again (this connector's sink after a split).
        ``dropAfterSplit``: also drops them where the shard was split from a parent whose range holds the whole
        aggregate (the KPL writes those again; loses records of mixed-key producers on split streams). ``drop``: the
        KCL's filter, drops every one (loses records of mixed-key producers). Counted in ``outOfRangeRecords`` and
        ``outOfRangeRecordsDropped``. See KPL aggregated records.

        One of ``"keep"``, ``"dropAfterSplit"``, ``"drop"`` (default ``keep``).
        """
        return self._set("outOfRangeUserRecords", _checks.registry_choice("outOfRangeUserRecords", policy))

    def record_decoder(self: Builder, decoder: str) -> Builder:
        """``recordDecoder``: Who reads GetRecords answers and SubscribeToShard events: ``connector``, the connector's
        own decoders (several times less CPU per record), or ``sdk``, the AWS SDK's own unmarshalling, with the same
        rows and offsets. Try ``sdk`` first when records are suspected of being read wrong. Also set for every query
        of a session by the Spark conf ``spark.sparkkinesis.recordDecoder``.

        One of ``"connector"``, ``"sdk"`` (default ``connector``).
        """
        return self._set("recordDecoder", _checks.registry_choice("recordDecoder", decoder))

    def include_record_ids(self: Builder, include: bool) -> Builder:
        """``includeRecordIds``: Adds a last column ``recordId`` (string): the id a writer with ``recordIds`` gave the
        record, the same for every copy at-least-once writing made of it, null for records without one. Drop the
        repeats with ``dropDuplicatesWithinWatermark(["recordId"])``. See Exactly once after deduplication.

        ``True`` or ``False`` (default ``false``).
        """
        return self._set("includeRecordIds", _checks.boolean("includeRecordIds", include))

    def max_shards_per_describe(self: Builder, shards: int) -> Builder:
        """``maxShardsPerDescribe``: Shards per ListShards page.

        An integer from 1 to 10000 (default ``100``).
        """
        return self._set("maxShardsPerDescribe", _checks.int_option("maxShardsPerDescribe", shards))

    def consumer_name(self: Builder, names: NameList) -> Builder:
        """``consumerName``: EFO consumer name, or a comma-separated list, one per stream.

        One name, several as a sequence or a comma-separated string.
        """
        return self._set("consumerName", _checks.name_list("consumerName", names))

    def consumer_arn(self: Builder, arns: NameList) -> Builder:
        """``consumerARN``: The ARN of an enhanced fan-out consumer registered elsewhere, or a comma-separated list,
        one per stream (``arn:aws:kinesis:us-east-1:123456789012:stream/orders/consumer/reader:1700000000``): read
        with it as is, never registered nor deregistered; checked to be ACTIVE and to belong to the stream read.
        Instead of consumerName, consumerNamePrefix and requireConsumerDeregistration.

        One name, several as a sequence or a comma-separated string.
        """
        return self._set("consumerARN", _checks.name_list("consumerARN", arns))

    def consumer_refresh_interval(self: Builder, interval: Duration) -> Builder:
        """``consumerRefreshInterval``: How often the EFO consumer registration is checked.

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), from 1s to 1h (default ``300s``).
        """
        return self._set("consumerRefreshInterval", _checks.duration_option("consumerRefreshInterval", interval))


class SinkSetters(SharedSetters):
    """The setters of options that apply to writing only."""

    def max_records_per_put(self: Builder, records: int) -> Builder:
        """``maxRecordsPerPut``: Most records in one PutRecords call (500 is the Kinesis limit).

        An integer from 1 to 500 (default ``500``).
        """
        return self._set("maxRecordsPerPut", _checks.int_option("maxRecordsPerPut", records))

    def max_bytes_per_put(self: Builder, size: ByteSize) -> Builder:
        """``maxBytesPerPut``: Most bytes (data plus partition keys) in one call (5mb is the Kinesis limit); a larger
        record goes alone.

        A size (bytes, or a string such as ``512kb`` or ``10mb``), above 0 and at most 5mb (default ``5mb``).
        """
        return self._set("maxBytesPerPut", _checks.size_option("maxBytesPerPut", size))

    def max_in_flight_puts(self: Builder, calls: int) -> Builder:
        """``maxInFlightPuts``: PutRecords calls one task keeps in flight at once.

        An integer from 1 to 64 (default ``4``).
        """
        return self._set("maxInFlightPuts", _checks.int_option("maxInFlightPuts", calls))

    def max_put_retries(self: Builder, retries: int) -> Builder:
        """``maxPutRetries``: How often a refused record (throttling included) is sent again before its task fails.

        An integer from 0 to 1000 (default ``10``).
        """
        return self._set("maxPutRetries", _checks.int_option("maxPutRetries", retries))

    def put_retry_backoff(self: Builder, backoff: Duration) -> Builder:
        """``putRetryBackoff``: Wait before the first retry; doubled each retry, randomized.

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), positive and at most 10m (default
        ``100ms``).
        """
        return self._set("putRetryBackoff", _checks.duration_option("putRetryBackoff", backoff))

    def max_put_retry_backoff(self: Builder, backoff: Duration) -> Builder:
        """``maxPutRetryBackoff``: Longest wait between retries (at least putRetryBackoff).

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), positive and at most 10m (default
        ``5s``).
        """
        return self._set("maxPutRetryBackoff", _checks.duration_option("maxPutRetryBackoff", backoff))

    def max_put_linger(self: Builder, linger: Duration) -> Builder:
        """``maxPutLinger``: Longest a record waits for its PutRecords call to fill before it is sent anyway: keeps
        latency low when rows come slowly, as in real-time mode. ``KinesisForeachWriter`` (``foreach_kinesis``)
        defaults to 5ms.

        A duration (a ``timedelta`` or a string such as ``400ms`` or ``10s``), positive and at most 10m (default
        ``50ms``).
        """
        return self._set("maxPutLinger", _checks.duration_option("maxPutLinger", linger))

    def aggregation(self: Builder, mode: str) -> Builder:
        """``aggregation``: ``kpl`` packs the rows bound for one shard into KPL aggregates of up to 1 MiB (one Kinesis
        record each), which this connector, the KCL and the Databricks Runtime split again: far fewer Kinesis
        records for small rows; needs ``kinesis:ListShards``. ``none``: one Kinesis record per row. See Writing KPL
        aggregates.

        One of ``"none"``, ``"kpl"`` (default ``none``).
        """
        return self._set("aggregation", _checks.registry_choice("aggregation", mode))

    def order_per_key(self: Builder, ordered: bool) -> Builder:
        """``orderPerKey``: Keep each partition key's records in the order the task wrote them, with
        ``maxInFlightPuts`` calls in parallel (a call carries one record per key, or one aggregate per shard);
        ``false`` lets a key's records share calls and overtake each other on retries, for many records per key
        without aggregation.

        ``True`` or ``False`` (default ``true``).
        """
        return self._set("orderPerKey", _checks.boolean("orderPerKey", ordered))

    def record_ids(self: Builder, stamped: bool) -> Builder:
        """``recordIds``: Gives every row an id, the same each time Spark sends the row again (the query's id, the
        batch, the partition and the row's place in it), carried as a KPL tag: each record is put as a KPL
        aggregate, which readers that do not split aggregates (Firehose, plain GetRecords) see as such. This
        connector's ``includeRecordIds`` reads the ids. See Exactly once after deduplication.

        ``True`` or ``False`` (default ``false``).
        """
        return self._set("recordIds", _checks.boolean("recordIds", stamped))
