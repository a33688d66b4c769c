#!/usr/bin/env bash
# Live sessions and the real-time layer (see bench/realtime.py): heartbeats per second with
# GET /auth/me's latency while they run, the monitors' session list at 100,000 sessions, and
# 1,000 open WebSockets (server memory, time from a logout call to the close frame).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || apt_install wrk
ensure_psycopg
python3 -c 'import websockets' 2>/dev/null || pip install -q -r bench/requirements.txt
DURATION="${DURATION:-15}"
start_server enterprise_platform_bench_realtime "${BENCH_PORT:-8286}"
export BENCH_PID="${BENCH_PIDS[-1]}"
BASE="$BENCH_BASE"
BENCH_TOKEN=$(curl -fs -H 'content-type: application/json' \
  -d "{\"email\":\"$BENCH_EMAIL\",\"password\":\"$BENCH_PASSWORD\"}" "$BASE/api/v1/auth/login" \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
export BENCH_TOKEN

echo "## 1. Heartbeats: POST /monitoring/sessions/activity, 64 connections, ${DURATION} s"
wrk -t2 -c64 -d"$((DURATION + 2))s" --latency -s bench/heartbeat.lua "$BASE/api/v1/monitoring/sessions/activity" > /tmp/bench-heartbeats.txt &
load=$!
sleep 1
echo "### GET /auth/me, 2 connections, while the heartbeats run"
wrk -t1 -c2 -d"${DURATION}s" --latency -H "Authorization: Bearer $BENCH_TOKEN" "$BASE/api/v1/auth/me"
wait $load
echo "### the heartbeat load:"
cat /tmp/bench-heartbeats.txt
echo
python3 bench/realtime.py
