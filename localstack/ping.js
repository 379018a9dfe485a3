// SPDX-License-Identifier: Apache-2.0
// Exits 0 when the kinesis-mock on 127.0.0.1:<port> answers a real ListStreams call over
// plain HTTP, 1 otherwise. kinesis-mock rejects requests without an Authorization header
// and an X-Amz-Date (MissingAuthenticationToken / IncompleteSignature) but never checks the
// signature, so a fixed fake one is enough. Node is used because it is needed anyway.
'use strict';
const http = require('http');

const port = Number(process.argv[2]);
const body = '{}';
const req = http.request({
  host: '127.0.0.1', port, method: 'POST', path: '/', timeout: 2000,
  headers: {
    'Content-Type': 'application/x-amz-json-1.1',
    'X-Amz-Target': 'Kinesis_20131202.ListStreams',
    'X-Amz-Date': '20240101T000000Z',
    'Authorization': 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20240101/us-east-1/kinesis/aws4_request, SignedHeaders=host;x-amz-date, Signature=0',
    'Content-Length': Buffer.byteLength(body),
  },
}, (res) => {
  let data = '';
  res.on('data', (c) => { data += c; });
  res.on('end', () => {
    try {
      process.exit(res.statusCode === 200 && Array.isArray(JSON.parse(data).StreamNames) ? 0 : 1);
    } catch (e) {
      process.exit(1);
    }
  });
});
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => process.exit(1));
req.end(body);
