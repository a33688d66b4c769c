#!/usr/bin/env bash
# The API fuzzed from its own served openapi.json with schemathesis (pinned in requirements.txt),
# once per role (department user beside department head, then CEO, then platform admin: the
# roles that can end others' powers come last), with real ids (world.py) and the checks
# not_a_server_error, status_code_conformance, content_type_conformance,
# response_schema_conformance, ignored_auth (each operation is also called without its token
# and must refuse) and negative_data_rejection (input the document forbids must be refused;
# world.py allows 413 for a body past the limit, and 412 for a stale If-Match); and once without any token at all, beside the
# CEO. Any failure fails the run. FUZZ_CHECKS names other checks.
#
#   FUZZ_EXAMPLES  examples per operation and phase (default 25)
#   FUZZ_BIN       the server binary (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/services.sh

venv="${XDG_CACHE_HOME:-$HOME/.cache}/enterprise-platform/fuzz-venv"
if ! "$venv/bin/schemathesis" --version 2>/dev/null | grep -q "$(sed -n 's/^schemathesis==//p' scripts/fuzz/requirements.txt)"; then
  say "fuzz: installing schemathesis into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r scripts/fuzz/requirements.txt
fi

bin="${FUZZ_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/backend}"
port="${FUZZ_PORT:-8183}"
db="enterprise_platform_fuzz"
work="$(mktemp -d)"
psql "$PG_BASE_URL/postgres" -qc "drop database if exists $db with (force)"
export DATABASE_URL="$PG_BASE_URL/$db" REDIS_PREFIX="fuzz:$(date +%s%N):" JWT_SECRET="$(openssl rand -hex 32)" DATA_ENCRYPTION_KEYS="v1:$(openssl rand -base64 32)"
# Request limits off: schemathesis sends far more than a program may (they have their own tests).
export BIND_ADDR="127.0.0.1:$port" RUST_LOG="${RUST_LOG:-error}" LOG_FORMAT=json LOGIN_MAX_FAILURES_PER_IP=100000 API_RATE_LIMIT=0 WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
export FUZZ_ADMIN_EMAIL="admin@fuzz.test" FUZZ_ADMIN_PASSWORD="fuzz-admin-password"
"$bin" create-admin --email "$FUZZ_ADMIN_EMAIL" --password "$FUZZ_ADMIN_PASSWORD" --full-name "Fuzz Admin" >/dev/null
"$bin" serve > "$work/server.log" 2>&1 &
server=$!
cleanup() {
  kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true
  psql "$PG_BASE_URL/postgres" -qc "drop database if exists $db with (force)"
  rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 50); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.2; done

export FUZZ_CHECKS="${FUZZ_CHECKS:-not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,ignored_auth,negative_data_rejection}"
python3 scripts/fuzz/world.py "http://127.0.0.1:$port" "$work" >/dev/null
failed=0
# One worker per process: with two, Hypothesis's shared lambda-source cache raced (a KeyError
# inside the generator, reported as a runtime error of whichever operation it hit), failing the
# stage with no fault of the server's. Separate processes share nothing, so two run at a time
# (each mostly waits for the server or generates on one core): the user beside the department head
# (neither can end the other's powers), then the CEO beside the run without a token (which can
# change nothing), then the admin alone, last, since it can end everyone's.
fuzz_as() {
  local role="$1" config="$work/$1.toml" checks="$FUZZ_CHECKS"
  # Signing out would end the token the rest of the run uses; sign-out has its own tests.
  local options=(--exclude-operation-id logout --generation-with-security-parameters false)
  if [ "$role" = anonymous ]; then
    # No token, and no attempt to make one (schemathesis would try to sign up and in by itself:
    # anonymous.toml, written by world.py).
    checks="${checks/,ignored_auth/}" options=()
  fi
  "$venv/bin/schemathesis" --config-file "$config" run "http://127.0.0.1:$port/api/openapi.json" \
    --checks "$checks" --phases examples,coverage,fuzzing --max-examples "${FUZZ_EXAMPLES:-25}" --workers 1 \
    --suppress-health-check all --no-color --generation-database none "${options[@]}"
}
# Runs the roles named at once, each into a log of its own, printed in order when all are done.
together() {
  local pids=() role i=0 rc=0
  for role in "$@"; do
    fuzz_as "$role" >"$work/$role.log" 2>&1 &
    pids+=($!)
  done
  for role in "$@"; do
    if wait "${pids[$i]}"; then say "fuzz: the API as the $role: passed"; else say "fuzz: the API as the $role: FAILED"; rc=1; fi
    cat "$work/$role.log"
    i=$((i + 1))
  done
  return $rc
}
together user head || failed=1
together ceo anonymous || failed=1
together admin || failed=1
if [ "$failed" != 0 ]; then
  echo "--- server log (errors) ---"; tail -n 50 "$work/server.log"
  die "the fuzzer found failures"
fi
# A request the fuzzer saw answered well may still have failed inside (a task, a log of a refusal
# that should never happen): the server's log holds no ERROR line and no panic.
server_log_clean "$work/server.log" || die "the server logged an error or a panic during the fuzz run (above)"
