#!/usr/bin/env bash
# `make test`: every test. Backend unit and integration tests (real PostgreSQL and Redis),
# generated-code drift checks, frontend type check and unit tests, then end-to-end tests in
# headless Chromium against the real server.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
[ -x /usr/bin/chromium ] || apt_install chromium
command -v pgbouncer >/dev/null || apt_install pgbouncer
command -v pdftotext >/dev/null || apt_install poppler-utils
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light
# Reads docker/compose.yaml without a Docker daemon (Debian's Compose v1; v2 is used when present).
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || apt_install --no-install-recommends docker-compose

# How long each stage took, printed at the end (and when a stage fails).
stage_start=$SECONDS stage_name="setup" stages=()
stage() {
  stages+=("$(printf '%5ds  %s' $((SECONDS - stage_start)) "$stage_name")")
  stage_name="$1" stage_start=$SECONDS
  say "$1"
}
report_stages() {
  stages+=("$(printf '%5ds  %s' $((SECONDS - stage_start)) "$stage_name")")
  printf '\nmake test, by stage (%d s in all):\n' "$SECONDS" >&2
  printf '  %s\n' "${stages[@]}" >&2
}
trap report_stages EXIT

# A real SMTP server for the tests of e-mail (scripts/mail/catcher.py): exports SMTP_URL and
# MAIL_CATCHER_URL, which the API tests and the end-to-end servers send to and read from.
MAIL_SMTP_PORT=2525 MAIL_HTTP_PORT=2580 MAIL_DIR="$(mktemp -d)/mail" source scripts/mail/start.sh
# A catcher an earlier run left answering keeps that run's mail, sent to the same addresses (an API
# test's are fixed): the tests read the links of this run only.
curl -fsS -X DELETE "$MAIL_CATCHER_URL/api/messages" >/dev/null
# A real OpenID provider (scripts/oidc/provider.mjs, oidc-provider) for the tests of single
# sign-on: exports OIDC_ISSUER, which the API tests and the end-to-end tests configure.
OIDC_PORT=2590 OIDC_LOG="$(mktemp -d)/oidc.log" source scripts/oidc/start.sh
# A real DNS server (scripts/dns/server.py, dnslib) for the proofs of single sign-on domains:
# exports DNS_RESOLVER, which the API tests' servers and the end-to-end servers look TXT records
# up at, and DNS_ZONE_DIR, where the tests publish them.
source scripts/dns/start.sh

# Each #[sqlx::test] makes (and drops) its own database through this server.
export DATABASE_URL="$PG_BASE_URL/postgres"

# The backend's checks and the frontend's are bound by different things (rustc's codegen over both
# cores, node's one thread) and share only the server binary, which the backend builds first: they
# run side by side, each into a log of its own, printed when both are done.
backend_checks() {
  cargo fmt --check
  # The server binary first (target/debug/backend): the frontend's unit tests wait for it (one
  # runs its spreadsheet engine), and `cargo test` reuses the library it builds.
  cargo build -p backend --locked
  touch "$binary_ready"
  cargo clippy --workspace --all-targets --locked -- -D warnings
  # The API tests mostly wait (HTTP, PostgreSQL, Redis, the engine's worker): six at a time
  # finish in 92 s instead of 146 s with one per core, within PostgreSQL's 100 connections.
  cargo test --workspace --locked -- --test-threads=6
}
frontend_checks() {
  # npm ci starts from an empty node_modules every time: skipped when the lockfile is the one the
  # installed tree came from.
  lock_sum="$(sha256sum frontend/package-lock.json | cut -d' ' -f1)"
  if [ "$(cat frontend/node_modules/.lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
    (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >frontend/node_modules/.lock-sha256
  fi
  # The build's own `tsc -b` is the type check just run: vite and the precompression only.
  (cd frontend && npm run check:generated && npm run lint && npm run format:check && npm run typecheck \
    && npx vite build && node scripts/precompress.mjs && npm run budget)
  while [ ! -e "$binary_ready" ]; do
    [ -e "$backend_failed" ] && { echo "no server binary: the backend's build failed"; return 1; }
    sleep 2
  done
  (cd frontend && npm test)
}
side_by_side() {
  local logs="$side_by_side_logs" pids=() names=() failed=0 i
  for name in "$@"; do
    # The side runs in a background subshell of its own, in no `||` or `&&` list: bash ignores
    # `set -e` in a function called from such a list (and in everything it calls), so a failed
    # `cargo fmt --check` or clippy would be passed over. Here every command's failure ends the
    # side, and the EXIT trap marks it failed for the other side to see.
    (
      set -euo pipefail
      trap 'status=$?; [ "$status" -eq 0 ] || touch "$logs/$name.failed"' EXIT
      SECONDS=0
      "$name"
      echo "($name: ${SECONDS} s)"
    ) >"$logs/$name.log" 2>&1 &
    pids+=($!) names+=("$name")
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then failed=1; names[$i]="${names[$i]} FAILED"; fi
  done
  for i in "${!names[@]}"; do
    say "${names[$i]}"
    cat "$logs/${names[$i]%% *}.log"
  done
  rm -rf "$logs"
  return $failed
}

stage "backend (format, build, lints, unit and integration tests, the openapi.json drift check) beside the frontend (dependencies, generated hooks, lint, format, types, build, bundle budget, then unit tests with the server binary)"
side_by_side_logs="$(mktemp -d)"
binary_ready="$side_by_side_logs/binary-ready" backend_failed="$side_by_side_logs/backend_checks.failed"
side_by_side backend_checks frontend_checks

stage "docker: the compose file (with and without the balanced profile) and the balancer's nginx.conf"
bash docker/check.sh

stage "Citus: a coordinator and two workers (scripts/citus, built once per machine); backend migrate, then every API test on the cluster"
source scripts/citus/start.sh
if [ -n "${CITUS_DATABASE_URL:-}" ]; then
  citus_db="enterprise_platform_citus_migrate"
  psql "$CITUS_BASE_URL/postgres?sslmode=disable" -qc "drop database if exists $citus_db with (force)"
  DATABASE_URL="$CITUS_BASE_URL/$citus_db?sslmode=disable" "${CARGO_TARGET_DIR:-$PWD/target}/debug/backend" migrate
  psql "$CITUS_BASE_URL/postgres?sslmode=disable" -qc "drop database if exists $citus_db with (force)"
  # The API tests' fixed addresses read this stage's mail only.
  curl -fsS -X DELETE "$MAIL_CATCHER_URL/api/messages" >/dev/null
  # Each test database is made from template1 and migrated (a copy would not carry Citus's tables
  # to the workers); four at a time, within the workers' background-worker slots.
  API_TESTS_MIGRATE_EACH=1 DATABASE_URL="$CITUS_DATABASE_URL" cargo test -p backend --test api --locked -- --test-threads=4
  bash scripts/citus/cluster.sh drop-databases >/dev/null
fi

stage "end-to-end: a fresh database, a seeded admin, the real server, headless Chromium"
cargo build -p backend --locked
e2e_db="enterprise_platform_e2e"
psql "$PG_BASE_URL/postgres" -qc "drop database if exists $e2e_db with (force)"
export DATABASE_URL="$PG_BASE_URL/$e2e_db"
# The server runs as it does in production (docker/compose.yaml): the database and its audit log
# belong to an owner role that migrates it (MIGRATION_DATABASE_URL) and grants the server's role
# what it needs; the server connects as that role, which owns nothing but the tenant schemas it
# creates and cannot rewrite the audit log. Neither is a superuser. Where we may not create roles,
# the connecting role serves and owns everything.
migration_url=""
if [ "$(psql "$PG_BASE_URL/postgres" -Atc "select rolsuper or rolcreaterole from pg_roles where rolname = current_user")" = t ]; then
  psql "$PG_BASE_URL/postgres" -qc "do \$\$ begin
      if not exists (select from pg_roles where rolname = 'emp_app') then
        create role emp_app login nosuperuser nocreatedb nocreaterole password 'emp_app';
      end if;
      if not exists (select from pg_roles where rolname = 'emp_owner') then
        create role emp_owner login nosuperuser nocreatedb nocreaterole password 'emp_owner';
      end if; end \$\$;" -c "grant emp_app to emp_owner" -c "create database $e2e_db owner emp_owner" \
    -c "revoke all on database $e2e_db from public"
  DATABASE_URL="postgres://emp_app:emp_app@${PG_BASE_URL#*@}/$e2e_db"
  migration_url="postgres://emp_owner:emp_owner@${PG_BASE_URL#*@}/$e2e_db"
fi
export REDIS_PREFIX="e2e:$(date +%s%N):"
export JWT_SECRET="$(openssl rand -hex 32)"
export E2E_BACKEND_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/backend"
export E2E_ADMIN_EMAIL="admin@e2e.test" E2E_ADMIN_PASSWORD="e2e-admin-password"
# Migrated as the owner; the server started by Playwright gets no MIGRATION_DATABASE_URL.
MIGRATION_DATABASE_URL="$migration_url" "$E2E_BACKEND_BIN" migrate
MIGRATION_DATABASE_URL="$migration_url" "$E2E_BACKEND_BIN" create-admin --email "$E2E_ADMIN_EMAIL" --password "$E2E_ADMIN_PASSWORD" --full-name "E2E Admin"
(cd frontend && npm run e2e)
stage "end-to-end, balanced: sign-in and the messenger through nginx over two server instances; a session ended on one is dead on the other; an event published on one reaches a socket on the other"
(cd frontend && npm run e2e:balanced)

stage "API fuzzing: schemathesis against the served openapi.json, as each role"
bash scripts/fuzz/run.sh

stage "contract: Redocly lints openapi.json, openapi-python-client generates a client from it without a warning, and that client walks the main path against the real server"
bash scripts/contract/run.sh

stage "faults: PostgreSQL restarted under load, Redis stopped and started, two instances (their own throwaway PostgreSQL and Redis)"
bash scripts/faults/run.sh
