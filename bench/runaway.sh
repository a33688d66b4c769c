#!/usr/bin/env bash
# Spreadsheet engine bounds (see bench/runaway.py): runaway formulas stopped by the static check or
# the worker's deadline, crafted XLSX imports refused by streaming counts, and another tenant's
# exports while one tenant keeps the engine busy. Memory: the server's RSS and its workers'.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
python3 -c 'import openpyxl' 2>/dev/null || pip install -q -r bench/requirements.txt
# The engine's bytes of the two formulas, written by the browser's engine with evaluation paused.
export BENCH_STATIC="$(mktemp)" BENCH_OFFSET="$(mktemp)"
trap 'stop_servers; rm -f "$BENCH_STATIC" "$BENCH_OFFSET"' EXIT
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } \
  && node ../bench/runaway-workbook.mjs '=COUNTBLANK(B1:XFD1048576)' "$BENCH_STATIC" \
  && node ../bench/runaway-workbook.mjs '=COUNTBLANK(OFFSET(B1,0,0,1048576,16000))' "$BENCH_OFFSET")
start_server enterprise_platform_bench_runaway "${BENCH_PORT:-8290}"
BENCH_PID="${BENCH_PIDS[-1]}" python3 bench/runaway.py
