-- SPDX-License-Identifier: Apache-2.0
-- The stream's records as they arrive: STREAM makes read_kinesis a streaming read.
CREATE STREAMING TABLE orders_sql
AS SELECT
  partitionKey,
  CAST(data AS STRING) AS payload,
  approximateArrivalTimestamp
FROM STREAM read_kinesis(
  streamName => 'orders',
  region => 'us-east-1',
  initialPosition => 'trim_horizon'
);
