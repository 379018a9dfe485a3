// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import software.amazon.awssdk.retries.DefaultRetryStrategy
import software.amazon.awssdk.retries.api.RetryStrategy

/**
 * The retry strategy of the client GetRecords is called on ([[AwsClientFactory.recordsKinesis]]):
 * the SDK retries failed calls as usual, except when Kinesis throttles. Then the call fails at once, so the shard's cursor sees it: it halves
 * what it asks for, backs off, logs `Hit rate limit` and counts it in `throttleEvents`
 * (ARCHITECTURE.md invariant 4). With the SDK's own throttling retries the cursor rarely
 * saw one, and each hidden retry was one more call against the shard's 5 calls a second.
 */
private[client] object ThrottlingSurfaces {

  val strategy: RetryStrategy = DefaultRetryStrategy.standardStrategyBuilder()
    .useClientDefaults(false) // the client's defaults would add its throttling conditions back
    .retryOnException((t: Throwable) => retryable(t))
    .build()

  /** What [[Retryable]] retries, except throttling. */
  def retryable(t: Throwable): Boolean = Retryable(t) && !Retryable.throttling(t)
}
