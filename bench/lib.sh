# Shared by the bench scripts: services, a release build, a fresh database with an admin, and a
# server on loopback that is stopped (and its database dropped) on exit. Source it, then call
# `start_server NAME PORT`; it exports BENCH_BASE, BENCH_BIN, BENCH_EMAIL, BENCH_PASSWORD.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/services.sh

start_server() {
  local name="$1" port="$2"
  export BENCH_BASE="http://127.0.0.1:$port"
  export BENCH_EMAIL="bench-admin@example.com" BENCH_PASSWORD="bench-admin-password"
  cargo build --release -q -p backend
  export BENCH_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/backend"
  BENCH_DB="$name"
  psql "$PG_BASE_URL/postgres" -qc "drop database if exists $BENCH_DB with (force)"
  export DATABASE_URL="$PG_BASE_URL/$BENCH_DB"
  export REDIS_PREFIX="$name:$(date +%s):" JWT_SECRET="$(openssl rand -hex 32)" BIND_ADDR="127.0.0.1:$port" RUST_LOG=warn
  "$BENCH_BIN" create-admin --email "$BENCH_EMAIL" --password "$BENCH_PASSWORD" --full-name "Bench Admin" >/dev/null
  "$BENCH_BIN" serve &
  BENCH_SERVER=$!
  trap 'kill $BENCH_SERVER 2>/dev/null; wait $BENCH_SERVER 2>/dev/null || true; psql "$PG_BASE_URL/postgres" -qc "drop database if exists $BENCH_DB with (force)"' EXIT
  for _ in $(seq 1 50); do curl -fs "$BENCH_BASE/healthz" >/dev/null && return; sleep 0.2; done
  die "the server did not start"
}

ensure_psycopg() {
  python3 -c 'import psycopg' 2>/dev/null || pip install -q -r bench/requirements.txt
}
