#!/usr/bin/env bash
# What a program's token costs (issue 23), in one window on this machine: GET /reports/{id} by a
# department head, 64 connections, READ seconds per run, alternating
#   session: the head's session token (a JWT, its session checked in Redis);
#   token:   the head's personal access token (looked up by its hash in PostgreSQL every request);
# twice each, then the same session read on a second server with the request limit on (one Redis
# INCR per request; the first server runs with it off, as every other benchmark does).
#
#   bash bench/tokens.sh        READ=10 bash bench/tokens.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || apt_install wrk
ensure_psycopg
READ="${READ:-15}"
work="$(mktemp -d)"
trap 'rm -rf "$work"; stop_servers' EXIT

prepare() {
  BENCH_PID="${BENCH_PIDS[-1]}" BENCH_CONVERSATIONS="$1/conversations" REPORTS=1000 CONVERSATIONS=1 python3 bench/mixed.py prepare "$1" >/dev/null
  curl -sS --fail-with-body "$BENCH_BASE/api/v1/api-tokens" -H "Authorization: Bearer $(cat "$1/writer.token")" \
    -H 'Content-Type: application/json' -d '{"name": "bench", "scopes": ["reports:read"]}' \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"], end="")' > "$1/program.token"
}

run() { # label, token file, server, output; the server's own reports
  local reports="$work/off/reports"
  [ "$3" = "$on" ] && reports="$work/on/reports"
  BENCH_TOKEN="$(cat "$2")" BENCH_REPORTS="$reports" wrk -t2 -c64 -d"${READ}s" --latency -s bench/report.lua "$3/api/v1/reports" > "$4"
  echo "$1=64=$4" >> "$work/rows"
}

mkdir -p "$work/off" "$work/on"
start_server enterprise_platform_bench_tokens "${BENCH_PORT:-8291}"
off="$BENCH_BASE"
prepare "$work/off"
API_RATE_LIMIT=100000000 start_server enterprise_platform_bench_tokens_limited "$((${BENCH_PORT:-8291} + 1))"
on="$BENCH_BASE"
prepare "$work/on"

echo "## machine: $(nproc) cores; wrk, the servers, PostgreSQL and Redis share them"
echo "## GET /reports/{id}, 64 connections, ${READ} s per run, $(wc -l < "$work/off/reports") reports round robin"
BENCH_TOKEN="$(cat "$work/off/writer.token")" BENCH_REPORTS="$work/off/reports" wrk -t2 -c64 -d3s -s bench/report.lua "$off/api/v1/reports" > /dev/null
for round in 1 2; do
  run "session token, limit off (run $round)" "$work/off/writer.token" "$off" "$work/session-$round.txt"
  run "personal access token, limit off (run $round)" "$work/off/program.token" "$off" "$work/token-$round.txt"
done
run "session token, limit on" "$work/on/writer.token" "$on" "$work/session-limited.txt"
run "personal access token, limit on" "$work/on/program.token" "$on" "$work/token-limited.txt"
mapfile -t rows < "$work/rows"
python3 bench/mixed.py summary "${rows[@]}" | grep -v '^| all '
