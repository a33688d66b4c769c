#!/usr/bin/env bash
# The monitoring map at platform scale (issue 28): GET /monitoring/places over SESSIONS sessions
# (LIVE of them live) of 2,000 enterprises x 50 people, in 300 cities, inserted with SQL; then
# READS sequential requests each for the admin's live map, its zoomed-out grid, a filtered map
# (flagged only) and one CEO's live map. Prints p50 / p99 / max per request (curl's total time).
#
#   bash bench/places.sh        BENCH_BIN=target/debug/backend READS=100 BROWSER=0 bash bench/places.sh
# The browser part (bench/map-browser.mjs) serves frontend/dist, built first if missing.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
port="${BENCH_PORT:-8294}" reads="${READS:-200}"
# The sweep every 2 s, so the mass expiry below is heard soon after it is made.
export SESSION_SWEEP_SECS=2
# The web app, for the browser's measurement (BROWSER=0 skips it).
if [ "${BROWSER:-1}" = 1 ]; then
  [ -x /usr/bin/chromium ] || apt_install chromium
  [ -f frontend/dist/index.html ] || (cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npx vite build >/dev/null)
  export STATIC_DIR="$PWD/frontend/dist"
fi
start_server enterprise_platform_bench_places "$port"

token() { curl -fsS "$BENCH_BASE/api/v1/auth/login" -H 'content-type: application/json' -d "{\"email\":\"$1\",\"password\":\"$2\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'; }
admin="$(token "$BENCH_EMAIL" "$BENCH_PASSWORD")"
curl -fsS "$BENCH_BASE/api/v1/enterprises" -H "authorization: Bearer $admin" -H 'content-type: application/json' \
  -d '{"name":"Bench Map","ceoFullName":"Map CEO","ceoEmail":"ceo@map.bench","ceoPassword":"bench-ceo-password"}' >/dev/null
ceo="$(token ceo@map.bench bench-ceo-password)"

say "places: inserting ${SESSIONS:-1000000} sessions (${LIVE:-100000} live)"
per_user=$(( ${SESSIONS:-1000000} / 100000 )) ended=$(( (${SESSIONS:-1000000} - ${LIVE:-100000}) / 100000 ))
psql "$BENCH_DB_URL" -q <<SQL
insert into enterprises (id, name, schema_name) select id, 'Bench ' || g, 't_' || replace(id::text, '-', '') from (select gen_random_uuid() as id, g from generate_series(1, 1999) g) e;
create temp table ents as select id, row_number() over (order by id) n from enterprises;
insert into users (id, enterprise_id, role, full_name, email, password_hash, status)
  select gen_random_uuid(), e.id, 'DepartmentUser', 'User ' || e.n || '-' || u, 'u' || e.n || '-' || u || '@places.bench', 'x', 'active'
  from ents e, generate_series(1, 50) u;
create temp table us as select id, enterprise_id, row_number() over (order by id) n from users where email like '%@places.bench';
create temp table cities as select c, 'City ' || c as name, (array['FR','GB','DE','US','SE','JP'])[1 + c % 6] as country,
  -60 + (c * 37 % 120)::float8 + (c % 7) * 0.1 as lat, -170 + (c * 53 % 340)::float8 + (c % 5) * 0.1 as lon from generate_series(0, 299) c;
insert into sessions (id, user_id, enterprise_id, city, country, latitude, longitude, created_at, last_seen_at, expires_at, ended_at, end_reason, flags)
  select gen_random_uuid(), u.id, u.enterprise_id, c.name, c.country, c.lat, c.lon,
    -- Live ones seen minutes ago (the server's idle sweep leaves them be), the others ended.
    now() - interval '1 hour', now() - (u.n % 10) * interval '1 minute', now() + interval '1 day',
    case when s <= $ended then now() - interval '1 day' end, case when s <= $ended then 'logout' end,
    case when (u.n + s) % 50 = 0 then array['new_country'] else '{}' end
  from us u, generate_series(1, $per_user) s, lateral (select * from cities where c = (u.n * 7 + s * 13) % 300) c;
vacuum analyze;
SQL
ceo_enterprise="$(psql "$BENCH_DB_URL" -Atc "select enterprise_id from users where email = 'ceo@map.bench'")"
# The CEO's enterprise gets 50 live sessions of the synthetic kind, as every other one has: 50
# people of another enterprise moved into it, with their sessions.
psql "$BENCH_DB_URL" -qc "with moved as (update users set enterprise_id = '$ceo_enterprise' where id in (select user_id from sessions where ended_at is null and enterprise_id <> '$ceo_enterprise' and user_id in (select id from users where email like '%@places.bench') group by user_id limit 50) returning id) update sessions set enterprise_id = '$ceo_enterprise' where user_id in (select id from moved) and ended_at is null"
# Sessions written by SQL: the activity per user is recomputed from them once, as a migration would.
say "places: the activity per user from $(psql "$BENCH_DB_URL" -Atc 'select count(*) from sessions') sessions"
"$BENCH_BIN" rebuild-activity

# `timed LABEL N PATH TOKEN`: N sequential GETs of PATH; one table row of p50 / p99 / max ms.
timed() {
  local label="$1" n="$2" path="$3" who="$4"
  for _ in $(seq 1 "$n"); do
    curl -fsS -o /dev/null -w '%{time_total}\n' "$BENCH_BASE$path" -H "authorization: Bearer $who"
  done | python3 -c "
import sys
t = sorted(float(x) * 1000 for x in sys.stdin)
p = lambda q: t[min(len(t) - 1, int(q * len(t)))]
print(f'| $label | {len(t)} | {p(0.5):.1f} | {p(0.99):.1f} | {t[-1]:.1f} |')"
}
measure() {
  local label="$1" who="$2" query="$3"
  timed "$label" "$reads" "/api/v1/monitoring/places?$query" "$who"
  curl -fsS "$BENCH_BASE/api/v1/monitoring/places?$query" -H "authorization: Bearer $who" | python3 -c "import json,sys; d=json.load(sys.stdin); print(f'|   ({len(d)} places, {sum(p[\"total\"] for p in d)} sessions) | | | | |')"
}
echo
echo "| request | n | p50 ms | p99 ms | max ms |"
echo "|---|---|---|---|---|"
measure "admin, live sessions" "$admin" "active=true"
measure "admin, live, zoom 3 grid" "$admin" "active=true&zoom=3"
measure "admin, live and flagged" "$admin" "active=true&flagged=true"
measure "CEO, live sessions" "$ceo" "active=true"
measure "admin, one enterprise, live" "$admin" "active=true&enterpriseId=$ceo_enterprise"

# The activity table (issue 28: p99 under 50 ms): the admin's first page of 100,000 people, a
# search, one CEO's.
activity() {
  timed "activity: $1" "${4:-$reads}" "/api/v1/monitoring/user-activity?$3" "$2"
}
activity "admin, first page of 50" "$admin" "pageSize=50"
activity "admin, page 100" "$admin" "pageSize=50&page=100"
activity "admin, search u17-" "$admin" "q=u17-&pageSize=50"
activity "CEO" "$ceo" "pageSize=50"
# With a period the sessions themselves are aggregated (seconds at this size): a few reads only.
activity "admin, with a period (aggregates the sessions)" "$admin" "from=2000-01-01&pageSize=50" 5

# The screen itself at this scale: time to show the map and the table in Chromium.
if [ "${BROWSER:-1}" = 1 ]; then
  say "places: the monitoring screen in Chromium"
  BASE="$BENCH_BASE" ADMIN_EMAIL="$BENCH_EMAIL" ADMIN_PASSWORD="$BENCH_PASSWORD" CEO_EMAIL=ceo@map.bench CEO_PASSWORD=bench-ceo-password \
    node bench/map-browser.mjs
fi

# 10,000 live sessions of 2,000 enterprises go idle at once; the sweep ends them in one statement.
# How many messages does a monitor's socket get? (the admin's, and one CEO's)
ensure_psycopg
say "places: 10,000 sessions ending at once, heard by the admin's and a CEO's sockets"
BASE="$BENCH_BASE" ADMIN="$admin" CEO="$ceo" DB="$BENCH_DB_URL" ENTERPRISE="$ceo_enterprise" python3 - <<'PY'
import asyncio, json, os, time
import psycopg, websockets

async def listen(token, seconds, out):
    url = os.environ["BASE"].replace("http", "ws") + "/api/v1/ws"
    async with websockets.connect(url, max_queue=None) as ws:
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(await ws.recv())["type"] == "ready"
        out.append("ready")
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            try:
                out.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
            except asyncio.TimeoutError:
                break

async def main():
    admin, ceo = [], []
    tasks = [asyncio.create_task(listen(os.environ["ADMIN"], 12, admin)), asyncio.create_task(listen(os.environ["CEO"], 12, ceo))]
    while len(admin) < 1 or len(ceo) < 1:
        await asyncio.sleep(0.05)
    with psycopg.connect(os.environ["DB"], autocommit=True) as db:
        # The CEO's enterprise's 50 live sessions and 9,950 others: seen last three hours ago.
        synthetic = "ended_at is null and user_id in (select id from users where email like '%%@places.bench')"
        db.execute("update sessions set last_seen_at = now() - interval '3 hours' where id in ("
                   f" (select id from sessions where {synthetic} and enterprise_id = %s limit 50) union all"
                   f" (select id from sessions where {synthetic} and enterprise_id <> %s limit 9950))",
                   (os.environ["ENTERPRISE"], os.environ["ENTERPRISE"]))
    await asyncio.gather(*tasks)
    for who, got in (("admin", admin), ("CEO", ceo)):
        events = [e for e in got[1:] if isinstance(e, dict) and e.get("type", "").startswith("monitoring.")]
        ended = sum(e.get("ended", 0) for e in events if e["type"] == "monitoring.sessions_changed") + sum(1 for e in events if e["type"] == "monitoring.session_ended")
        print(f"| {who} | {len(events)} monitoring messages | {ended} sessions ended in them |")

asyncio.run(main())
PY
