// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis.prefetch

import org.scalatest.funsuite.AnyFunSuite
import org.scalatest.matchers.should.Matchers

import io.github.sparkkinesis.efo.SubscriptionCounts

/** The driver's sums of the subscription counts prefetch tasks report per executor. */
class SubscriptionReportsSuite extends AnyFunSuite with Matchers {
  private val first = "executor_host_1"
  private val second = "executor_host_2"

  test("live subscriptions: the latest report per alive executor; re-subscriptions: every executor's") {
    val reports = new SubscriptionReports
    reports.record(first, SubscriptionCounts(liveSubscriptions = 2, resubscriptions = 1, report = 5))
    reports.record(second, SubscriptionCounts(liveSubscriptions = 3, resubscriptions = 4, report = 9))
    reports.record(first,
      SubscriptionCounts(liveSubscriptions = 1, resubscriptions = 2, report = 3)) // older, arrived later

    reports.liveSubscriptions(Set(first, second)) shouldBe 5
    reports.resubscriptions shouldBe 5

    reports.record(first, SubscriptionCounts(liveSubscriptions = 4, resubscriptions = 3, report = 6))
    reports.liveSubscriptions(Set(first, second)) shouldBe 7
    reports.resubscriptions shouldBe 7

    // the second was lost: its subscriptions went with it, its re-subscriptions happened.
    reports.liveSubscriptions(Set(first)) shouldBe 4
    reports.resubscriptions shouldBe 7
  }

  test("an executor holding subscriptions but owning no shard gets a few clean-up tasks, until it reports") {
    val reports = new SubscriptionReports
    reports.record(first, SubscriptionCounts(2, 0, 1))
    reports.record(second, SubscriptionCounts(2, 0, 2))
    val alive = Set(first, second)

    reports.cleanupTargets(owners = Seq(second, second), alive) shouldBe Seq(first)
    reports.cleanupTargets(owners = Seq(second), alive) shouldBe Seq(first)
    reports.cleanupTargets(owners = Seq(second), alive) shouldBe Seq(first)
    reports.cleanupTargets(owners = Seq(second), alive) shouldBe empty // it never answered: give up

    reports.record(first, SubscriptionCounts(1, 0, 3)) // it ran a task after all, one still open
    reports.cleanupTargets(owners = Seq(second), alive) shouldBe Seq(first)
    reports.record(first, SubscriptionCounts(0, 0, 4))
    reports.cleanupTargets(owners = Seq(second), alive) shouldBe empty
    reports.cleanupTargets(owners = Nil, alive = Set(first)) shouldBe empty // the second is gone
    reports.executors(alive) shouldBe Seq(first, second)
  }
}
