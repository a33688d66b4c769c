#!/usr/bin/env bash
# Export memory under load (see bench/exports.py): 16 concurrent exports of the largest report.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export MAX_BODY_BYTES=$((2 * 1024 * 1024))
start_server enterprise_platform_bench_exports "${BENCH_PORT:-8285}"
BENCH_PID="${BENCH_PIDS[-1]}" python3 bench/exports.py
