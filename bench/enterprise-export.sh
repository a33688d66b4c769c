#!/usr/bin/env bash
# What an enterprise's export costs (issue 46, point 2): an enterprise of REPORTS reports (default
# 100,000), each with a small data table and its review history, written straight into its schema;
# then `POST /enterprises/{id}/exports` as its CEO, followed until ready. Prints the time from the
# request to the ready archive, its size, and the server's resident memory before and its peak
# (VmHWM) after, which is what "bounded memory" means here.
#
#   bash bench/enterprise-export.sh        REPORTS=10000 BENCH_BIN=target/debug/backend bash bench/enterprise-export.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
REPORTS="${REPORTS:-100000}"
export PYTHONPATH="$(cd "$(dirname "$0")" && pwd)"
start_server enterprise_platform_bench_export "${BENCH_PORT:-8291}"
server_pid="${BENCH_PIDS[-1]}"
read -r ent ceo user finance < <(python3 - <<'PY'
from common import call, login
import os
admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])
_, ent = call("POST", "/api/v1/enterprises", admin, {"name": "Export bench", "ceoFullName": "CEO", "ceoEmail": "ceo@export.bench", "ceoPassword": "bench-password"})
ceo = login("ceo@export.bench", "bench-password")
_, depts = call("GET", f"/api/v1/enterprises/{ent['id']}/departments", ceo)
finance = next(d["id"] for d in depts if d["type"] == "finance")
_, user = call("POST", "/api/v1/users", ceo, {"fullName": "Writer", "email": "writer@export.bench", "password": "bench-password", "role": "DepartmentUser", "departmentId": finance})
print(ent["id"], ceo, user["id"], finance)
PY
)
schema="t_${ent//-/}"
t0=$(date +%s%N)
psql "$BENCH_DB_URL" -q -v ON_ERROR_STOP=1 <<SQL
insert into $schema.reports (id, department_id, title, content, period_start, period_end, status, data, created_by, created_at, updated_at, submitted_at)
select gen_random_uuid(), '$finance', 'Report ' || n, repeat('Quarterly figures and what they mean. ', 10), '2026-01-01', '2026-03-31', 'submitted',
       jsonb_build_object('columns', jsonb_build_array('Month', 'Revenue', 'Costs'),
                          'rows', jsonb_build_array(jsonb_build_array('Jan', n, n / 2), jsonb_build_array('Feb', n * 2, n), jsonb_build_array('Mar', n * 3, n))),
       '$user', now(), now(), now()
from generate_series(1, $REPORTS) n;
insert into $schema.report_events (id, report_id, actor_id, from_status, to_status, created_at)
select gen_random_uuid(), id, created_by, 'draft', 'submitted', now() from $schema.reports;
SQL
echo "$REPORTS reports with their history written in $(( ($(date +%s%N) - t0) / 1000000 )) ms"
rss() { awk -v k="$1" '$1 == k":" { print $2 }' "/proc/$server_pid/status"; }
echo "server before: $(rss VmRSS) KiB resident, $(rss VmHWM) KiB peak so far"
ENT="$ent" CEO="$ceo" python3 - <<'PY'
import os, time
from common import call
ent, ceo = os.environ["ENT"], os.environ["CEO"]
t = time.perf_counter()
_, export = call("POST", f"/api/v1/enterprises/{ent}/exports", ceo, {})
while export["status"] in ("queued", "running"):
    time.sleep(0.2)
    _, export = call("GET", f"/api/v1/enterprises/{ent}/exports/{export['id']}", ceo)
elapsed = time.perf_counter() - t
assert export["status"] == "ready", export
print(f"export ready in {elapsed:.1f} s: {export['sizeBytes'] / 1e6:.1f} MB")
t = time.perf_counter()
status, body = call("GET", export["downloadUrl"], ceo, raw=True)
print(f"downloaded {len(body) / 1e6:.1f} MB in {time.perf_counter() - t:.1f} s")
PY
echo "server after: $(rss VmRSS) KiB resident, $(rss VmHWM) KiB peak"
