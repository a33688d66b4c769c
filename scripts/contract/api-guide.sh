#!/usr/bin/env bash
# Runs every ```sh example of docs/api.md, in order, in one shell, against a running server:
# the guide for programs says what the server does. Any failing command fails the run.
#   usage: api-guide.sh <base url> <admin e-mail> <admin password>
set -euo pipefail
cd "$(dirname "$0")/../.."
examples="$(mktemp)"
trap 'rm -f "$examples"' EXIT
awk '/^```sh$/ {on = 1; next} /^```$/ {on = 0} on' docs/api.md >"$examples"
[ -s "$examples" ] || { echo "docs/api.md has no sh examples" >&2; exit 1; }
BASE="$1" ADMIN_EMAIL="$2" ADMIN_PASSWORD="$3" bash -euo pipefail "$examples"
