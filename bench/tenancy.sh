#!/usr/bin/env bash
# Tenancy benchmarks (see bench/tenancy.py). Takes a while: it creates MANY_TENANTS (default
# 10,000) enterprises through the API (about 3 minutes on 2 cores). Smaller: MIGRATE_TENANTS=200 MANY_TENANTS=1000 bash bench/tenancy.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_psycopg
# Two servers, two databases: the small one keeps 10 tenants, the other grows to MANY_TENANTS, and
# the read of section 3 alternates between them so that machine noise hits both sides alike.
start_server enterprise_platform_bench_tenancy_small "${BENCH_SMALL_PORT:-8285}"
export SMALL_BASE="$BENCH_BASE" SMALL_DB_URL="$BENCH_DB_URL"
start_server enterprise_platform_bench_tenancy "${BENCH_PORT:-8283}"
python3 bench/tenancy.py
