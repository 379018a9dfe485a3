// SPDX-License-Identifier: Apache-2.0
// Preloaded into kinesis-mock with `node --require`: kinesis-mock 0.6.2 has no setting for
// the listen address and always listens on every interface (hard-coded 0.0.0.0, which
// Node turns into a wildcard listen). A test double with no authentication should not be
// reachable from the network, so every listen() without a specific host is bound to
// KINESIS_LOCAL_BIND_HOST instead (default 127.0.0.1; set 0.0.0.0 to expose it).
'use strict';
const net = require('net');

const host = process.env.KINESIS_LOCAL_BIND_HOST || '127.0.0.1';
const wildcard = (h) => h === undefined || h === null || h === '' || h === '0.0.0.0' || h === '::';
const listen = net.Server.prototype.listen;

net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number') {
    // listen(port[, host][, backlog][, callback])
    if (typeof args[1] !== 'string') args.splice(1, 0, host);
    else if (wildcard(args[1])) args[1] = host;
  } else if (args[0] && typeof args[0] === 'object' && args[0].port !== undefined && wildcard(args[0].host)) {
    // listen(options[, callback])
    args[0] = Object.assign({}, args[0], { host });
  }
  return listen.apply(this, args);
};
