#!/usr/bin/env bash
# The messenger's server (see bench/messaging.py): delivery latency from POST /messaging/messages
# to the recipient's socket with 1,000 sockets open, messages per second sustained, a page of the
# timeline at 100,000 messages in one conversation, and the server's memory.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || apt_install wrk
ensure_psycopg
python3 -c 'import websockets' 2>/dev/null || pip install -q -r bench/requirements.txt
start_server enterprise_platform_bench_messaging "${BENCH_PORT:-8287}"
export BENCH_PID="${BENCH_PIDS[-1]}" BENCH_CONVERSATIONS="$(mktemp)"
python3 bench/messaging.py prepare
export BENCH_TOKEN="$(cat "$BENCH_CONVERSATIONS.token")"
echo "## 2. Messages per second: POST /messaging/messages, 32 connections, ${DURATION:-15} s, over $(wc -l < "$BENCH_CONVERSATIONS") conversations"
wrk -t2 -c32 -d"${DURATION:-15}s" --latency -s bench/message.lua "$BENCH_BASE/api/v1/messaging/messages"
python3 bench/messaging.py measure
rm -f "$BENCH_CONVERSATIONS" "$BENCH_CONVERSATIONS.token"
