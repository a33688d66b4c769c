#!/usr/bin/env bash
# Report benchmarks (see bench/reports.py): lists at 10,000 reports in one tenant, and exports
# of a report with a 1,000-row table.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_psycopg
start_server enterprise_platform_bench_reports "${BENCH_PORT:-8284}"
python3 bench/reports.py
