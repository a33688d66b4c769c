#!/usr/bin/env bash
# Tenancy benchmarks (see bench/tenancy.py). Takes a while: it creates MANY_TENANTS (default
# 10,000) enterprises through the API. Smaller: MIGRATE_TENANTS=200 MANY_TENANTS=1000 bash bench/tenancy.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_psycopg
start_server enterprise_platform_bench_tenancy "${BENCH_PORT:-8283}"
python3 bench/tenancy.py
