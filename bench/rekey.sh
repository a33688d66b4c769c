#!/usr/bin/env bash
# What rotating the data key costs (issue 46): TENANTS enterprises (default 1,000), each with a
# webhook whose secret was rotated once (two sealed secrets per tenant) and SPARE_TOTP people with
# an authenticator, made through the API of a server whose ring is v1; then `backend rekey` with
# v1,v2 (every value sealed again with v2), timed with its peak memory; then a second `rekey`
# (nothing left to do) and a server start with v2 alone (its check of the keys and of the values).
#
#   bash bench/rekey.sh        TENANTS=200 bash bench/rekey.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
TENANTS="${TENANTS:-1000}"
v1="v1:$(openssl rand -base64 32)" v2="v2:$(openssl rand -base64 32)"
export DATA_ENCRYPTION_KEYS="$v1" WEBHOOK_ALLOW_PRIVATE_NETWORKS=true
start_server enterprise_platform_bench_rekey "${BENCH_PORT:-8289}"
TENANTS="$TENANTS" python3 bench/rekey.py
stop_servers_only() { for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; done; BENCH_PIDS=(); }
stop_servers_only
counts() { psql "$BENCH_DB_URL" -Atc "select substring(secret from '^sealed:v[0-9]+') as v, count(*) from public.webhooks group by 1 union all select 'previous ' || substring(previous_secret from '^sealed:v[0-9]+'), count(*) from public.webhooks where previous_secret is not null group by 1 order by 1" | tr '\n' ' '; }
echo "before: $(counts)"
/usr/bin/time -f '%e s wall, %M KiB peak RSS' env DATA_ENCRYPTION_KEYS="$v1,$v2" "$BENCH_BIN" rekey
echo "after:  $(counts)"
/usr/bin/time -f 'again: %e s wall, %M KiB peak RSS' env DATA_ENCRYPTION_KEYS="$v1,$v2" "$BENCH_BIN" rekey
export DATA_ENCRYPTION_KEYS="$v2"
t0=$(date +%s%N)
"$BENCH_BIN" serve & BENCH_PIDS+=($!)
for _ in $(seq 1 100); do curl -fs "$BENCH_BASE/healthz" >/dev/null && break; sleep 0.05; done
echo "a server with v2 alone answers /healthz after $(( ($(date +%s%N) - t0) / 1000000 )) ms"
