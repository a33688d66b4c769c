#!/usr/bin/env bash
# The same server on one PostgreSQL and on a Citus cluster (see bench/citus.py and
# docs/scaling.md). Needs a running Citus coordinator whose `postgres` database has the citus
# extension with its workers added, and database creation propagated
# (citus.enable_create_database_propagation = on): CITUS_BASE_URL=postgres://postgres@127.0.0.1:9700
set -euo pipefail
: "${CITUS_BASE_URL:?set CITUS_BASE_URL to the Citus coordinator, e.g. postgres://postgres@127.0.0.1:9700}"
source "$(dirname "$0")/lib.sh"
ensure_psycopg
start_server enterprise_platform_bench_plain "${BENCH_PLAIN_PORT:-8286}"
export PLAIN_BASE="$BENCH_BASE" PLAIN_DB_URL="$BENCH_DB_URL"
# Citus makes its own self-signed TLS certificate (X.509 v1, which rustls refuses): on loopback,
# no TLS (docs/scaling.md says how to give the cluster a real certificate instead).
export PGSSLMODE=disable
# The Citus server keeps its default spare tenant schemas (2: tenancy::spares); a second one
# keeps none, so each new enterprise builds its schema in the request, as before them.
TENANT_SPARE_SCHEMAS=0 PG_BASE_URL="$CITUS_BASE_URL" start_server enterprise_platform_bench_citus_inline "${BENCH_CITUS_INLINE_PORT:-8288}"
export CITUS_INLINE_BASE="$BENCH_BASE"
"$BENCH_BIN" migrate >/dev/null
PG_BASE_URL="$CITUS_BASE_URL" start_server enterprise_platform_bench_citus "${BENCH_CITUS_PORT:-8287}"
export CITUS_BASE="$BENCH_BASE" CITUS_DB_URL="$BENCH_DB_URL"
"$BENCH_BIN" migrate >/dev/null
python3 bench/citus.py
psql "$CITUS_BASE_URL/postgres" -qc "drop database if exists enterprise_platform_bench_citus with (force)" \
  -c "drop database if exists enterprise_platform_bench_citus_inline with (force)"
