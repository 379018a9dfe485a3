// SPDX-License-Identifier: Apache-2.0
package io.github.sparkkinesis

import org.apache.spark.sql.SparkSession
import org.scalatest.{BeforeAndAfterAll, Suite}

/** A local SparkSession for one suite: started before its tests, stopped after them. */
trait LocalSpark extends BeforeAndAfterAll { this: Suite =>

  /** `local[n]`: the task slots the suite's jobs get. */
  protected def sparkMaster: String = "local[2]"

  protected var spark: SparkSession = _

  override def beforeAll(): Unit = {
    super.beforeAll()
    spark = SparkSession.builder().master(sparkMaster).appName(getClass.getSimpleName)
      .config("spark.ui.enabled", "false").getOrCreate()
  }

  override def afterAll(): Unit =
    try { if (spark != null) spark.stop() }
    finally super.afterAll()
}
