#!/usr/bin/env bash
# `make test`: every test. Backend unit and integration tests (real PostgreSQL and Redis),
# generated-code drift checks, frontend type check and unit tests, then end-to-end tests in
# headless Chromium against the real server.
# `make check` (scripts/test.sh check): the first stage only, for the loop between edits: formats,
# lints, types, the build and its budget, unit and API tests, Vitest; no browser, no cluster, no
# fuzzing.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
[ -x /usr/bin/chromium ] || apt_install chromium
command -v pgbouncer >/dev/null || apt_install pgbouncer
command -v pdftotext >/dev/null || apt_install poppler-utils
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt_install nginx-light
# Reads docker/compose.yaml without a Docker daemon (Debian's Compose v1; v2 is used when present).
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || apt_install --no-install-recommends docker-compose

only_check=false
[ "${1:-}" = check ] && only_check=true

# How long each stage took, in wall time and in CPU time (user + system of every process the stage
# started and waited for, as bash's `times` counts them: the services already running, such as
# PostgreSQL, are not in it; a background job's counts where it ends), printed at the end (and when a stage fails).
# (`times` in the shell itself: a command substitution would count its own subshell's, nothing.)
cpu_file="$(mktemp)"
cpu_seconds() {
  times >"$cpu_file"
  cpu="$(tail -n 1 "$cpu_file" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }')"
}
stage_start=$SECONDS stage_cpu=0 stage_name="setup" stages=()
end_stage() {
  local cpu; cpu_seconds
  stages+=("$(printf '%5ds %6d CPU-s  %s' $((SECONDS - stage_start)) $((cpu - stage_cpu)) "$stage_name")")
  stage_cpu=$cpu
}
stage() {
  end_stage
  stage_name="$1" stage_start=$SECONDS
  say "$1"
}
report_stages() {
  end_stage
  printf '\nmake %s, by stage (%d s and %d CPU-s in all):\n  wall    CPU\n' "$($only_check && echo check || echo test)" "$SECONDS" "$stage_cpu" >&2
  printf '  %s\n' "${stages[@]}" >&2
}
# The services this run started (the mail catcher, the OpenID provider, the DNS server) stop with it.
trap 'report_stages; stop_started_services' EXIT

# A real SMTP server for the tests of e-mail (MailDev, scripts/mail/start.sh): exports SMTP_URL and
# MAIL_CATCHER_URL, which the API tests and the end-to-end servers send to and read from.
MAIL_SMTP_PORT=2525 MAIL_HTTP_PORT=2580 MAIL_DIR="$(mktemp -d)/mail" source scripts/mail/start.sh
# A catcher an earlier run left answering keeps that run's mail, sent to the same addresses (an API
# test's are fixed): the tests read the links of this run only.
curl -fsS -X DELETE "$MAIL_CATCHER_URL/email/all" >/dev/null
# A real OpenID provider (scripts/oidc/provider.mjs, oidc-provider) for the tests of single
# sign-on: exports OIDC_ISSUER, which the API tests and the end-to-end tests configure.
OIDC_PORT=2595 OIDC_LOG="$(mktemp -d)/oidc.log" source scripts/oidc/start.sh
# A real DNS server (scripts/dns/server.py, dnslib) for the proofs of single sign-on domains:
# exports DNS_RESOLVER, which the API tests' servers and the end-to-end servers look TXT records
# up at, and DNS_ZONE_DIR, where the tests publish them.
source scripts/dns/start.sh
# The rules those services follow: a run stops what it started, reuses only its own checkout's.
bash scripts/services-check.sh

# Each #[sqlx::test] makes (and drops) its own database through this server.
export DATABASE_URL="$PG_BASE_URL/postgres"

source scripts/checks.sh

stage "backend (format, build, lints, unit and integration tests, the openapi.json drift check) beside the frontend (dependencies, generated hooks, lint, format, types, build, bundle budget, then unit tests with the server binary)"
side_by_side_logs="$(mktemp -d)"
binary_ready="$side_by_side_logs/binary-ready" backend_failed="$side_by_side_logs/backend_checks.failed"
side_by_side backend_checks frontend_checks
rm -rf "$side_by_side_logs"
$only_check && exit 0

# Beside the next stages: a fault of each kind planted in a scratch copy must fail the stage above.
selftest_log="$(mktemp)"
bash scripts/selftest.sh >"$selftest_log" 2>&1 &
selftest_pid=$!

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
  curl -fsS -X DELETE "$MAIL_CATCHER_URL/email/all" >/dev/null
  # Each test database is made from template1 and migrated (a copy would not carry Citus's tables
  # to the workers); four at a time, within the workers' background-worker slots.
  API_TESTS_MIGRATE_EACH=1 DATABASE_URL="$CITUS_DATABASE_URL" cargo test -p backend --test api --locked -- --test-threads=4
  bash scripts/citus/cluster.sh drop-databases >/dev/null
fi

stage "self-test (run beside the two stages above): a formatting error, a clippy warning, an ESLint error and a bundle over its budget, each planted in a scratch copy, each fails the first stage"
selftest_status=0
wait "$selftest_pid" || selftest_status=$?
cat "$selftest_log"
[ "$selftest_status" -eq 0 ] || die "the self-test failed: a check of the first stage does not fail the run"

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
export JWT_SECRET="$(openssl rand -hex 32)" DATA_ENCRYPTION_KEYS="v1:$(openssl rand -base64 32)"
export E2E_BACKEND_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/backend"
export E2E_ADMIN_EMAIL="admin@e2e.test" E2E_ADMIN_PASSWORD="e2e-admin-password"
# Migrated as the owner; the server started by Playwright gets no MIGRATION_DATABASE_URL.
MIGRATION_DATABASE_URL="$migration_url" "$E2E_BACKEND_BIN" migrate
MIGRATION_DATABASE_URL="$migration_url" "$E2E_BACKEND_BIN" create-admin --email "$E2E_ADMIN_EMAIL" --password "$E2E_ADMIN_PASSWORD" --full-name "E2E Admin"
# Beside the browser stages: each FAULTS_BREAK mode must fail the fault run (scripts/faults/breaks.sh).
breaks_log="$(mktemp)"
bash scripts/faults/breaks.sh >"$breaks_log" 2>&1 &
breaks_pid=$!
(cd frontend && npm run e2e)
stage "end-to-end, balanced: sign-in and the messenger through nginx over two server instances; a session ended on one is dead on the other; an event published on one reaches a socket on the other"
(cd frontend && npm run e2e:balanced)

stage "API fuzzing: schemathesis against the served openapi.json, as each role"
bash scripts/fuzz/run.sh

stage "contract: Redocly lints openapi.json, openapi-python-client generates a client from it without a warning, and that client walks the main path against the real server"
bash scripts/contract/run.sh

stage "faults broken on purpose (run beside the browser stages): each FAULTS_BREAK mode fails the fault run on its check"
breaks_status=0
wait "$breaks_pid" || breaks_status=$?
cat "$breaks_log"
[ "$breaks_status" -eq 0 ] || die "a fault run broken on purpose passed, or failed on something else"

stage "faults: PostgreSQL restarted under load, Redis stopped and started, two instances (their own throwaway PostgreSQL and Redis)"
bash scripts/faults/run.sh
