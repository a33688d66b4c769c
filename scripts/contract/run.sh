#!/usr/bin/env bash
# The contract: openapi.json is a document that tools take as it is, without hand edits.
#   1. Redocly CLI (pinned below) lints it with the `recommended` rules (redocly.yaml): no error.
#   2. openapi-python-client (pinned in requirements.txt) generates a Python client from it
#      (client-config.yaml) without a single warning: a warning is a schema or operation the
#      generator could not turn into code.
#   3. That client, untouched, walks the main path against the real server on a database of its
#      own (integration.py): every answer parses into its generated model, and the safety features
#      (Idempotency-Key replays, rate-limit headers, ApiError bodies) show through it.
#   4. Webhooks end to end (webhooks.py), through the same client and a real receiver that
#      verifies every delivery with the Standard Webhooks library (pinned in requirements.txt):
#      the events heard arrive signed, retries reach a failing receiver, a rotated secret signs
#      beside its successor, and an instance run as in production refuses private URLs. The server
#      here delivers to 127.0.0.1 (WEBHOOK_ALLOW_PRIVATE_NETWORKS), retries at a thousandth of the
#      real schedule and polls its outbox every 50 ms.
#   5. SCIM (scim.py): scim2-tester, an independent conformance tester (pinned in requirements.txt),
#      runs every check it has against /scim/v2 with a service credential: 0 failures.
#   6. The messenger's known answers, computed again by an independent implementation (Python's
#      `cryptography`, frontend/scripts/messenger-known-answers.py), are the committed vectors the
#      app's tests compare its bytes with.
#   7. The server's log holds no ERROR line and no panic.
# The tools live in a cache outside the repository, installed again only when a pin changes.
#
#   CONTRACT_BIN   the server binary (default: the debug build)
#   CONTRACT_PORT  its port (default 8184)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/services.sh

tools="${XDG_CACHE_HOME:-$HOME/.cache}/enterprise-platform/contract-tools"
redocly_version="2.77.0"
redocly="$tools/redocly/node_modules/.bin/redocly"
if [ "$("$redocly" --version 2>/dev/null)" != "$redocly_version" ]; then
  say "contract: installing @redocly/cli@$redocly_version into $tools/redocly"
  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$tools/redocly" "@redocly/cli@$redocly_version"
fi
venv="$tools/venv"
if ! cmp -s scripts/contract/requirements.txt "$venv/requirements.txt"; then
  say "contract: installing openapi-python-client into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r scripts/contract/requirements.txt
  cp scripts/contract/requirements.txt "$venv/requirements.txt"
fi

work="$(mktemp -d)"
db="enterprise_platform_contract"
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; fi
  psql "$PG_BASE_URL/postgres" -qc "drop database if exists $db with (force)"
  rm -rf "$work"
}
trap cleanup EXIT

say "contract: Redocly lints openapi.json (redocly.yaml: the recommended rules)"
# No telemetry (nothing to send it to here) and no update check.
if ! REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
    "$redocly" lint openapi.json --config scripts/contract/redocly.yaml; then
  die "Redocly found errors in openapi.json"
fi

say "contract: openapi-python-client generates a Python client from openapi.json"
# Its post-generation hooks run ruff, from the venv. Any warning fails: with --fail-on-warning
# it exits 1, and the grep catches one printed without that (a hook's, say).
if ! PATH="$venv/bin:$PATH" "$venv/bin/openapi-python-client" generate --path openapi.json \
    --output-path "$work/client" --config scripts/contract/client-config.yaml --fail-on-warning \
    >"$work/generate.log" 2>&1 || grep -qi "warning" "$work/generate.log"; then
  cat "$work/generate.log"
  die "openapi-python-client could not take openapi.json as it is"
fi
cat "$work/generate.log"

bin="${CONTRACT_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/backend}"
port="${CONTRACT_PORT:-8184}"
[ -x "$bin" ] || die "no server binary at $bin (cargo build -p backend, or set CONTRACT_BIN)"
psql "$PG_BASE_URL/postgres" -qc "drop database if exists $db with (force)"
export DATABASE_URL="$PG_BASE_URL/$db" REDIS_PREFIX="contract:$(date +%s%N):" JWT_SECRET="$(openssl rand -hex 32)" DATA_ENCRYPTION_KEYS="v1:$(openssl rand -base64 32)"
export BIND_ADDR="127.0.0.1:$port" RUST_LOG="${RUST_LOG:-error}" LOG_FORMAT=json
export CONTRACT_ADMIN_EMAIL="admin@contract.test" CONTRACT_ADMIN_PASSWORD="contract-admin-password"
"$bin" create-admin --email "$CONTRACT_ADMIN_EMAIL" --password "$CONTRACT_ADMIN_PASSWORD" --full-name "Contract Admin" >/dev/null
WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_RETRY_SCALE=0.001 OUTBOX_POLL_MS=50 "$bin" serve >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done
curl -fs "http://127.0.0.1:$port/healthz" >/dev/null || { cat "$work/server.log"; die "the server did not start"; }

# The client is generated from the committed document; a server built from other code answers
# another contract (make test builds both from one tree, and a backend test keeps them equal).
if ! curl -fs "http://127.0.0.1:$port/api/openapi.json" | python3 -c '
import json, sys
sys.exit(json.load(sys.stdin) != json.load(open("openapi.json")))'; then
  say "contract: warning: $bin serves another document than openapi.json (rebuild it, or make openapi)"
fi

say "contract: the generated client against the real server (integration.py)"
if ! PYTHONPATH="$work/client" "$venv/bin/python" scripts/contract/integration.py "http://127.0.0.1:$port"; then
  echo "--- server log (last lines) ---"; tail -n 50 "$work/server.log"
  die "the generated client and the server disagree"
fi
say "contract: webhooks delivered to a real receiver and verified (webhooks.py)"
if ! CONTRACT_SERVER_BIN="$bin" CONTRACT_WORK="$work" PYTHONPATH="$work/client" PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" scripts/contract/webhooks.py "http://127.0.0.1:$port"; then
  echo "--- server log (last lines) ---"; tail -n 50 "$work/server.log"
  if [ -s "$work/strict-server.log" ]; then echo "--- strict instance log (last lines) ---"; tail -n 20 "$work/strict-server.log"; fi
  die "webhooks do not reach their receiver as the contract says"
fi
say "contract: SCIM judged by an independent tester, scim2-tester (scim.py)"
if ! "$venv/bin/python" scripts/contract/scim.py "http://127.0.0.1:$port"; then
  echo "--- server log (last lines) ---"; tail -n 50 "$work/server.log"
  die "scim2-tester found SCIM answers that RFC 7643 and 7644 do not allow"
fi
say "contract: the examples of docs/api.md against the real server (api-guide.sh)"
command -v jq >/dev/null || apt_install jq
if ! bash scripts/contract/api-guide.sh "http://127.0.0.1:$port" "$CONTRACT_ADMIN_EMAIL" "$CONTRACT_ADMIN_PASSWORD"; then
  echo "--- server log (last lines) ---"; tail -n 50 "$work/server.log"
  die "docs/api.md says what the server does not"
fi
say "contract: the messenger's known answers, computed again independently, are the committed ones"
"$venv/bin/python" frontend/scripts/messenger-known-answers.py >"$work/known-answer-vectors.ts"
(cd frontend && npx prettier --stdin-filepath src/lib/crypto/known-answer-vectors.ts <"$work/known-answer-vectors.ts" >"$work/formatted.ts")
if ! diff -u frontend/src/lib/crypto/known-answer-vectors.ts "$work/formatted.ts"; then
  die "frontend/src/lib/crypto/known-answer-vectors.ts is not what messenger-known-answers.py computes"
fi
kill "$server"; wait "$server" 2>/dev/null || true; server=""
if ! server_log_clean "$work/server.log"; then
  die "the server logged an error or a panic during the contract run (above)"
fi
say "contract: passed in ${SECONDS} s"
