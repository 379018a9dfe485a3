#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs kinesis-mock (npm package kinesis-local) into localstack/node_modules at the
# version pinned in package.json. Does nothing when that version is already there.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

command -v node >/dev/null || { echo "install.sh: node is required (Node 18+)" >&2; exit 1; }
command -v npm >/dev/null || { echo "install.sh: npm is required" >&2; exit 1; }

# package.json is the one place the version is written down.
wanted="$(node -p "require('./package.json').dependencies['kinesis-local']")"
installed="$(node -p "try { require('./node_modules/kinesis-local/package.json').version } catch (e) { '' }")"

if [[ "$installed" == "$wanted" && -f node_modules/kinesis-local/main.js && -f node_modules/kinesis-local/server.json ]]; then
  exit 0
fi

echo "Installing kinesis-local $wanted into $here/node_modules ..."
# No lock file: it would record the registry's URL, and the exact pin already fixes the
# version (the package has no dependencies of its own).
npm install --no-package-lock --no-audit --no-fund --loglevel=error
installed="$(node -p "require('./node_modules/kinesis-local/package.json').version")"
[[ "$installed" == "$wanted" ]] || { echo "install.sh: got kinesis-local $installed, wanted $wanted" >&2; exit 1; }
