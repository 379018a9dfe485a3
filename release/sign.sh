#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Signs every file of a staged release (the Maven repository, the wheel, the sdist) with gpg,
# as <file>.asc beside it, when a key is configured: GPG_KEY_ID names it, or gpg's keyring
# holds a secret key. Without one it says so and signs nothing (exit 0); prints "signed" on
# its last line when it signed, so the caller can require the signatures.
set -euo pipefail

dir="${1:?usage: release/sign.sh <release directory>}"
if [[ -z "${GPG_KEY_ID:-}" ]] && ! gpg --batch --list-secret-keys 2>/dev/null | grep -q '^sec'; then
  echo "release: PGP signing skipped: no GPG_KEY_ID and no secret key in gpg's keyring." \
       "Maven Central refuses unsigned files: sign before uploading (see docs/releasing.md)."
  exit 0
fi
find "$dir" -type f ! -name '*.asc' ! -name '*.md5' ! -name '*.sha1' -print0 |
  while IFS= read -r -d '' file; do
    gpg --batch --yes --armor --detach-sign ${GPG_KEY_ID:+--local-user "$GPG_KEY_ID"} "$file"
  done
echo "signed"
