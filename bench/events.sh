#!/usr/bin/env bash
# Events out (issue 24; see bench/events.py), in one window on this machine:
#   1. webhook delivery latency, commit to receiver: one writer in sequence, then LOAD_WRITERS
#      writer threads for LOAD_SECONDS (throughput, nothing lost);
#   2. the audit log at AUDIT_ROWS entries (inserted with SQL): first pages, filters, next page;
#   3. the audit insert's share of report submission and user update;
# then 1a again on a second server with OUTBOX_POLL_MS=50 (POLL50=0 skips it), then
#   4. fairness: one tenant's deliveries alone and while another tenant's receiver hangs, on a
#      third server (FAIRNESS=0 skips it; FAIRNESS_ONLY=1 runs it alone).
# The servers send webhooks to a receiver on 127.0.0.1 over http: WEBHOOK_ALLOW_PRIVATE_NETWORKS.
# Bounded: fixed counts and durations, loopback only.
#
#   bash bench/events.sh        AUDIT_ROWS=200000 LOAD_SECONDS=10 POLL50=0 bash bench/events.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_psycopg
export WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
port="${BENCH_PORT:-8293}"

if [ "${FAIRNESS_ONLY:-0}" = 1 ]; then
  start_server enterprise_platform_bench_fairness "$((port + 4))"
  RECEIVER_PORT=$((port + 5)) python3 bench/events.py fairness
  exit 0
fi

start_server enterprise_platform_bench_events "$port"
RECEIVER_PORT=$((port + 2)) python3 bench/events.py all

if [ "${FAIRNESS:-1}" = 1 ]; then
  start_server enterprise_platform_bench_fairness "$((port + 4))"
  RECEIVER_PORT=$((port + 5)) python3 bench/events.py fairness
fi

if [ "${POLL50:-1}" = 1 ]; then
  echo "## 1a again, on a second server with OUTBOX_POLL_MS=50 (the first one idle beside it)"
  echo
  export OUTBOX_POLL_MS=50
  start_server enterprise_platform_bench_events_poll50 "$((port + 1))"
  RECEIVER_PORT=$((port + 3)) python3 bench/events.py delivery "(a) one writer, sequential, ${SEQ_REPORTS:-150} reports, OUTBOX_POLL_MS=50"
fi
