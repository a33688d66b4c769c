# Shared by the bench scripts: services, a release build, a fresh database with an admin, and a
# server on loopback that is stopped (and its database dropped, and any service it started) on exit. Source it, then call
# `start_server NAME PORT` (more than once for several servers); each call exports BENCH_BASE,
# BENCH_DB_URL (also as DATABASE_URL), BENCH_BIN (unless given), BENCH_EMAIL and BENCH_PASSWORD for its server.
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/services.sh

BENCH_PIDS=()
BENCH_DBS=()
stop_servers() {
  for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done
  for db in "${BENCH_DBS[@]}"; do psql "$PG_BASE_URL/postgres" -qc "drop database if exists $db with (force)"; done
  stop_started_services
}
trap stop_servers EXIT

start_server() {
  local name="$1" port="$2"
  export BENCH_BASE="http://127.0.0.1:$port"
  export BENCH_EMAIL="bench-admin@example.com" BENCH_PASSWORD="bench-admin-password"
  # BENCH_BIN set: that binary (to compare two builds in one window), else this tree's release build.
  if [ -z "${BENCH_BIN:-}" ]; then
    cargo build --release -q -p backend
    export BENCH_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/backend"
  fi
  psql "$PG_BASE_URL/postgres" -qc "drop database if exists $name with (force)"
  BENCH_DBS+=("$name")
  export DATABASE_URL="$PG_BASE_URL/$name" BENCH_DB_URL="$PG_BASE_URL/$name"
  export REDIS_PREFIX="$name:$(date +%s):" JWT_SECRET="${JWT_SECRET:-$(openssl rand -hex 32)}" DATA_ENCRYPTION_KEYS="${DATA_ENCRYPTION_KEYS:-v1:$(openssl rand -base64 32)}" BIND_ADDR="127.0.0.1:$port" RUST_LOG=warn
  # One token sends thousands of requests a second here: the request limit is off unless a
  # benchmark asks for it (bench/tokens.sh measures what it costs).
  export API_RATE_LIMIT="${API_RATE_LIMIT:-0}"
  "$BENCH_BIN" create-admin --email "$BENCH_EMAIL" --password "$BENCH_PASSWORD" --full-name "Bench Admin" >/dev/null
  "$BENCH_BIN" serve &
  BENCH_PIDS+=($!)
  for _ in $(seq 1 50); do curl -fs "$BENCH_BASE/healthz" >/dev/null && return; sleep 0.2; done
  die "the server did not start"
}

ensure_psycopg() {
  python3 -c 'import psycopg' 2>/dev/null || pip install -q -r bench/requirements.txt
}
