// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.client.failures

import java.net.SocketException

import org.scalatest.funsuite.AnyFunSuite

import software.amazon.awssdk.awscore.exception.AwsErrorDetails
import software.amazon.awssdk.core.exception.SdkClientException
import software.amazon.awssdk.services.kinesis.model.{
  KinesisException, LimitExceededException, ProvisionedThroughputExceededException
}

class ThrottlingSurfacesSuite extends AnyFunSuite {
  private def serviceError(status: Int, code: String) =
    KinesisException.builder().statusCode(status)
      .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(code).build()).build()

  test("throttling reaches the cursor instead of being retried by the SDK") {
    assert(!ThrottlingSurfaces.retryable(ProvisionedThroughputExceededException.builder().statusCode(400).build()))
    assert(!ThrottlingSurfaces.retryable(LimitExceededException.builder().statusCode(400).build()))
    assert(!ThrottlingSurfaces.retryable(serviceError(400, "ThrottlingException")))
  }

  test("server errors and dropped connections are still retried by the SDK") {
    assert(ThrottlingSurfaces.retryable(serviceError(500, "InternalFailure")))
    assert(ThrottlingSurfaces.retryable(serviceError(503, "ServiceUnavailable")))
    assert(ThrottlingSurfaces.retryable(SdkClientException.create("reset", new SocketException("Connection reset"))))
  }

  test("client errors that another try cannot mend are not retried") {
    assert(!ThrottlingSurfaces.retryable(serviceError(400, "ExpiredIteratorException")))
    assert(!ThrottlingSurfaces.retryable(serviceError(400, "AccessDeniedException")))
    assert(!ThrottlingSurfaces.retryable(new IllegalStateException("a bug")))
  }
}
