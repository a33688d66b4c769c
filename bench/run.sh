#!/usr/bin/env bash
# Load benchmarks of the foundation with wrk, against a release build on loopback.
# Prints the numbers recorded in docs/performance.md. Bounded: every run is a fixed duration.
#
#   bash bench/run.sh            (or: make bench)
#   DURATION=20 bash bench/run.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || apt_install wrk
DURATION="${DURATION:-15}"
start_server enterprise_platform_bench "${BENCH_PORT:-8282}"
BASE="$BENCH_BASE"

token=$(curl -fs -H 'content-type: application/json' \
  -d "{\"email\":\"$BENCH_EMAIL\",\"password\":\"$BENCH_PASSWORD\"}" "$BASE/api/v1/auth/login" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')

echo "## machine: $(nproc) cores, $(uname -r); wrk and the server share them"
echo
echo "## 1. POST /auth/login, one connection (latency of a sign-in: argon2id verify + session)"
wrk -t1 -c1 -d"${DURATION}s" --latency -s bench/login.lua "$BASE/api/v1/auth/login"
echo
echo "## 2. GET /auth/me, 32 connections (token check + session check in Redis + user read)"
wrk -t2 -c32 -d"${DURATION}s" --latency -H "Authorization: Bearer $token" "$BASE/api/v1/auth/me"
echo
echo "## 3. GET /healthz, 1 connection, while 32 connections sign in at once"
wrk -t1 -c32 -d"$((DURATION + 4))s" -s bench/login.lua "$BASE/api/v1/auth/login" > /tmp/bench-login-load.txt &
load=$!
sleep 2
wrk -t1 -c1 -d"${DURATION}s" --latency "$BASE/healthz"
wait $load
echo "### the concurrent login load:"
cat /tmp/bench-login-load.txt
