#!/usr/bin/env bash
# The mixed load (issue 13; see bench/mixed.py): in one window on this machine,
#   1. the floor: `pgbench -S -M prepared`, 64 clients, on a scratch database (dropped after);
#   2. GET /reports/{id} alone (a department head reading reports), 64 connections, with the CPU
#      each process spends per request, between two runs of the minimal authenticated read
#      (bench/floor: poem, an HS256 check, one Redis GET, one prepared row as JSON, on the same
#      token, reports and services) and its ratio to their mean (issue 28's target: >= 0.8);
#   3. the mixed load, 64 connections for 60 s: report reads, a report list, sign-ins,
#      heartbeats and message sends at once, one wrk per kind, p50/p99 and req/s per kind.
# Bounded: every run is a fixed duration; loopback only.
#
#   bash bench/mixed.sh        FLOOR=20 READ=20 MIXED=60 bash bench/mixed.sh
#   PERF=1 (a perf profile of the server during 2), SQL=0 (skip 2b), MIXED=0 (skip 3)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
command -v wrk >/dev/null || apt_install wrk
command -v pgbench >/dev/null || apt_install postgresql-contrib
ensure_psycopg
python3 -c 'import websockets' 2>/dev/null || pip install -q -r bench/requirements.txt
FLOOR="${FLOOR:-20}" READ="${READ:-20}" MIXED="${MIXED:-60}"
start_server enterprise_platform_bench_mixed "${BENCH_PORT:-8289}"
export BENCH_PID="${BENCH_PIDS[-1]}"
BASE="$BENCH_BASE"
work="$(mktemp -d)"
scratch=enterprise_platform_bench_pgbench
cleanup() {
  psql "$PG_BASE_URL/postgres" -qc "drop database if exists $scratch with (force)" || true
  rm -rf "$work"
  stop_servers
}
trap cleanup EXIT
export BENCH_CONVERSATIONS="$work/conversations"
python3 bench/mixed.py prepare "$work"

echo "## machine: $(nproc) cores, $(uname -r); pgbench, wrk, the server, PostgreSQL and Redis share them"
echo
echo "## 1. The floor: pgbench -S -M prepared, 64 clients, ${FLOOR} s (scale 10, scratch database)"
psql "$PG_BASE_URL/postgres" -qc "drop database if exists $scratch with (force)" -c "create database $scratch"
pgbench -q -i -s 10 "$PG_BASE_URL/$scratch" 2>&1 | tail -1
pgbench -S -M prepared -c 64 -j 2 -T "$FLOOR" "$PG_BASE_URL/$scratch" 2>&1 | grep -E 'latency average|^tps'
psql "$PG_BASE_URL/postgres" -qc "drop database $scratch with (force)"
echo

echo "## 2. GET /reports/{id} alone, 64 connections, ${READ} s (a department head, $(wc -l < "$work/reports") reports round robin)"
export BENCH_TOKEN="$(cat "$work/writer.token")" BENCH_REPORTS="$work/reports"
# The minimal authenticated read on the same token, reports, PostgreSQL and Redis.
if [ -z "${FLOOR_BIN:-}" ]; then
  cargo build --release -q -p bench-floor
  FLOOR_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/bench-floor"
fi
floor_port=$((${BENCH_PORT:-8289} + 1))
FLOOR_SCHEMA="$(cat "$work/schema")" BIND_ADDR="127.0.0.1:$floor_port" "$FLOOR_BIN" &
floor_pid=$!
BENCH_PIDS+=("$floor_pid")
for _ in $(seq 1 50); do curl -fs -o /dev/null -H "Authorization: Bearer $BENCH_TOKEN" "http://127.0.0.1:$floor_port/api/v1/reports/$(head -1 "$work/reports")" && break; sleep 0.2; done
floor_run() {
  echo "   the minimal authenticated read (bench/floor), run $1:"
  BENCH_PID="$floor_pid" python3 bench/mixed.py cpu "$work/cpu"
  wrk -t2 -c64 -d"${READ}s" --latency -s bench/report.lua "http://127.0.0.1:$floor_port/api/v1/reports" > "$work/floor-$1.txt"
  BENCH_PID="$floor_pid" python3 bench/mixed.py cpu "$work/cpu" "$(grep -oP '^\s+\K\d+(?= requests in)' "$work/floor-$1.txt")"
  python3 bench/mixed.py summary "bench/floor=64=$work/floor-$1.txt" | sed -n 3p | sed 's/^/   /'
}
wrk -t2 -c64 -d5s -s bench/report.lua "http://127.0.0.1:$floor_port/api/v1/reports" > /dev/null
floor_run 1
wrk -t2 -c64 -d5s -s bench/report.lua "$BASE/api/v1/reports" > /dev/null
python3 bench/mixed.py cpu "$work/cpu"
if [ "${PERF:-0}" = 1 ] && command -v perf >/dev/null; then
  perf record -q -F 499 -p "$BENCH_PID" -o "$work/perf.data" -- sleep "$((READ / 2))" 2>/dev/null &
  profiler=$!
fi
wrk -t2 -c64 -d"${READ}s" --latency -s bench/report.lua "$BASE/api/v1/reports" | tee "$work/read.txt"
python3 bench/mixed.py cpu "$work/cpu" "$(grep -oP '^\s+\K\d+(?= requests in)' "$work/read.txt")"
if [ -n "${profiler:-}" ]; then
  wait "$profiler" || true
  echo "   the server's CPU by function (perf, top 25):"
  perf report -q -i "$work/perf.data" --no-children --sort dso,symbol 2>/dev/null | grep -v '^$' | head -25 | cut -c1-110 | sed 's/^ */     /' || true
fi
floor_run 2
python3 bench/mixed.py ratio "$work/read.txt" "$work/floor-1.txt" "$work/floor-2.txt"
echo

if [ "${SQL:-1}" = 1 ]; then
echo "## 2b. The SQL of that read alone (pgbench -M prepared, 64 clients, ${FLOOR} s each, one report)"
schema="$(cat "$work/schema")" writer="$(cat "$work/writer.id")" report="$(head -1 "$work/reports")"
find="select r.id, r.department_id, r.title, r.content, r.period_start, r.period_end, r.status, r.data, r.created_by, a.full_name, a.email, a.role, r.created_at, r.updated_at, r.submitted_at, r.reviewed_by, v.full_name, v.email, r.reviewed_at, r.review_notes from reports r left join public.users a on a.id = r.created_by left join public.users v on v.id = r.reviewed_by where r.id = '$report';"
cat > "$work/today.sql" <<SQL
select u.department_id, exists (select 1 from "$schema".departments d where d.id = u.department_id and d.head_id = u.id) from public.users u where u.id = '$writer';
begin;
select set_config('search_path', '$schema', true);
$find
$find
select e.id, e.actor_id, u.full_name, u.email, u.role, e.from_status, e.to_status, e.notes, e.created_at from report_events e left join public.users u on u.id = e.actor_id where e.report_id = '$report' order by e.created_at, e.id;
commit;
SQL
cat > "$work/one.sql" <<SQL
select r.id, r.department_id, r.title, r.content, r.period_start, r.period_end, r.status, r.data, r.created_by, a.full_name, a.email, a.role, r.created_at, r.updated_at, r.submitted_at, r.reviewed_by, v.full_name, v.email, r.reviewed_at, r.review_notes, (select coalesce(json_agg(json_build_object('id', e.id, 'actor_id', e.actor_id, 'actor_name', u.full_name, 'actor_email', u.email, 'actor_role', u.role, 'from_status', e.from_status, 'to_status', e.to_status, 'notes', e.notes, 'created_at', e.created_at) order by e.created_at, e.id), '[]'::json) from "$schema".report_events e left join public.users u on u.id = e.actor_id where e.report_id = r.id), (select m.department_id from public.users m where m.id = '$writer') from "$schema".reports r left join public.users a on a.id = r.created_by left join public.users v on v.id = r.reviewed_by where r.id = '$report';
SQL
for shape in today one; do
  printf '   %s: ' "$([ $shape = today ] && echo 'as the server read it before issue 13 (workplace; begin; set_config; the report twice; its events; commit)' || echo 'one statement, schema-qualified (the report, its events as JSON, the reader'"'"'s department)')"
  pgbench -n -M prepared -c 64 -j 2 -T "$FLOOR" -f "$work/$shape.sql" "$BENCH_DB_URL" 2>&1 | grep -E '^tps' | sed 's/ (without initial connection time)//'
done
echo
fi

[ "$MIXED" = 0 ] && exit 0
echo "## 3. Mixed load, 64 connections, ${MIXED} s: one wrk per kind, all at once"
list="$(cat "$work/list.path")" loads=()
BENCH_TOKEN="$(cat "$work/writer.token")" wrk -t1 -c32 -d"${MIXED}s" --latency -s bench/report.lua "$BASE/api/v1/reports" > "$work/m-read.txt" & loads+=($!)
BENCH_TOKEN="$(cat "$work/writer.token")" wrk -t1 -c12 -d"${MIXED}s" --latency -s bench/list.lua "$BASE$list" > "$work/m-list.txt" & loads+=($!)
BENCH_TOKEN="$(cat "$work/writer.token")" wrk -t1 -c10 -d"${MIXED}s" --latency -s bench/heartbeat.lua "$BASE/api/v1/monitoring/sessions/activity" > "$work/m-beat.txt" & loads+=($!)
BENCH_TOKEN="$(cat "$work/sender.token")" wrk -t1 -c8 -d"${MIXED}s" --latency -s bench/message.lua "$BASE/api/v1/messaging/messages" > "$work/m-send.txt" & loads+=($!)
wrk -t1 -c2 -d"${MIXED}s" --latency -s bench/login.lua "$BASE/api/v1/auth/login" > "$work/m-login.txt" & loads+=($!)
wait "${loads[@]}"
python3 bench/mixed.py summary "GET /reports/{id}=32=$work/m-read.txt" "GET /departments/{id}/reports (first page)=12=$work/m-list.txt" \
  "POST /monitoring/sessions/activity (heartbeat)=10=$work/m-beat.txt" "POST /messaging/messages=8=$work/m-send.txt" \
  "POST /auth/login (argon2id)=2=$work/m-login.txt"
