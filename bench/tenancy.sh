#!/usr/bin/env bash
# Tenancy benchmarks (see bench/tenancy.py). Takes a while: it creates MANY_TENANTS (default
# 10,000) enterprises through the API. Smaller: MIGRATE_TENANTS=200 MANY_TENANTS=1000 bash bench/tenancy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh
python3 -c 'import psycopg' 2>/dev/null || pip install -q -r bench/requirements.txt

PORT="${BENCH_PORT:-8283}"
export BENCH_BASE="http://127.0.0.1:$PORT"
export BENCH_EMAIL="bench-admin@example.com" BENCH_PASSWORD="bench-admin-password"
cargo build --release -q -p backend
export BENCH_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/backend"

psql "$PG_BASE_URL/postgres" -qc "drop database if exists enterprise_platform_bench_tenancy with (force)"
export DATABASE_URL="$PG_BASE_URL/enterprise_platform_bench_tenancy"
export REDIS_PREFIX="bench-t:$(date +%s):" JWT_SECRET="$(openssl rand -hex 32)" BIND_ADDR="127.0.0.1:$PORT" RUST_LOG=warn
"$BENCH_BIN" create-admin --email "$BENCH_EMAIL" --password "$BENCH_PASSWORD" --full-name "Bench Admin" >/dev/null
"$BENCH_BIN" serve &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null || true; psql "$PG_BASE_URL/postgres" -qc "drop database if exists enterprise_platform_bench_tenancy with (force)"' EXIT
for _ in $(seq 1 50); do curl -fs "$BENCH_BASE/healthz" >/dev/null && break; sleep 0.2; done
python3 bench/tenancy.py
