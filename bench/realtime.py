"""Live sessions at scale (issue 9). Run through bench/realtime.sh, which starts a release server.

2. GET /monitoring/sessions (the admin's first page, and a CEO's filtered list) with SESSIONS
   sessions in the database, inserted with SQL.
3. SOCKETS WebSockets open on the one instance: the server's RSS before and after, then the time
   from POST /auth/logout to the close frame (4401) on that session's socket, over LOGOUTS
   sessions.
"""

import asyncio
import json
import os
import time
import uuid

import psycopg
import websockets

from common import BASE, call, login, ms, pct, summary, timed

DB = os.environ["DATABASE_URL"]
PID = int(os.environ["BENCH_PID"])
SESSIONS = int(os.environ.get("SESSIONS", "100000"))
SOCKETS = int(os.environ.get("SOCKETS", "1000"))
LOGOUTS = int(os.environ.get("LOGOUTS", "200"))
READS = int(os.environ.get("READS", "200"))


def rss_mib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])
    _, ent = call("POST", "/api/v1/enterprises", admin, {
        "name": "Bench Sessions", "ceoFullName": "CEO", "ceoEmail": "ceo@sessions.bench", "ceoPassword": "bench-password"})
    ceo = login("ceo@sessions.bench", "bench-password")
    with psycopg.connect(DB) as conn, conn.cursor() as cur:
        users = []
        for i in range(100):
            uid = uuid.uuid4()
            users.append(uid)
            cur.execute("insert into users (id, enterprise_id, role, full_name, email, password_hash) values (%s, %s, 'DepartmentUser', %s, %s, 'x')",
                        (uid, ent["id"], f"User {i}", f"user{i}@sessions.bench"))
        cur.execute(
            "insert into sessions (id, user_id, enterprise_id, ip_address, user_agent, browser, os, device_type, city, country, latitude, longitude, "
            " created_at, last_seen_at, expires_at, ended_at, end_reason, flags) "
            "select gen_random_uuid(), (%s::uuid[])[1 + i %% 100], %s, '81.2.69.142', 'bench', 'Chrome 120', 'Linux', 'desktop', 'London', 'GB', 51.5, -0.09, "
            " now() - make_interval(mins => i), now() - make_interval(mins => i) + interval '5 minutes', now() + interval '1 day', "
            " case when i %% 3 = 0 then now() - make_interval(mins => i) + interval '6 minutes' end, case when i %% 3 = 0 then 'logout' end, "
            " case when i %% 50 = 0 then array['new_country'] else '{}' end "
            "from generate_series(1, %s) i", ([str(u) for u in users], ent["id"], SESSIONS))
        cur.execute("analyze sessions")
    print(f"## 2. The monitors' session list with {SESSIONS} sessions ({READS} sequential requests each)")
    print(summary("admin, first page (every enterprise)", timed(READS, lambda: call("GET", "/api/v1/monitoring/sessions", admin))))
    print(summary("CEO, active only, page 50", timed(READS, lambda: call("GET", "/api/v1/monitoring/sessions?active=true&page=50", ceo))))
    print(summary("CEO, flagged, q=user 7", timed(READS, lambda: call("GET", "/api/v1/monitoring/sessions?flagged=true&q=user%207", ceo))))
    print(summary("CEO, activity per user", timed(READS, lambda: call("GET", "/api/v1/monitoring/user-activity", ceo))))
    call("POST", "/api/v1/users", ceo, {"fullName": "Socket User", "email": "sockets@sessions.bench", "password": "bench-password",
                                        "role": "DepartmentUser"})
    asyncio.run(sockets())


async def sockets():
    url = BASE.replace("http", "ws") + "/api/v1/ws"
    # One department user's sessions: staff receive no monitoring events, so the sockets measure
    # the socket itself (a monitor's socket also receives every session event in its scope).
    tokens = [login("sockets@sessions.bench", "bench-password") for _ in range(SOCKETS)]
    before = rss_mib()

    async def open_one(token):
        ws = await websockets.connect(url, max_queue=None)
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(await ws.recv())["type"] == "ready"
        return ws

    opened = []
    for start in range(0, SOCKETS, 100):
        opened += await asyncio.gather(*(open_one(t) for t in tokens[start:start + 100]))
    await asyncio.sleep(1)
    after = rss_mib()
    print(f"## 3. {SOCKETS} WebSockets open on one instance")
    print(f"   server RSS {before:.1f} MiB before, {after:.1f} MiB with them open ({(after - before) * 1024 / SOCKETS:.1f} KiB a socket)")

    async def closed_after_logout(ws, token):
        loop = asyncio.get_running_loop()
        start = time.perf_counter()
        await loop.run_in_executor(None, lambda: call("POST", "/api/v1/auth/logout", token))
        try:
            while True:
                await ws.recv()
        except websockets.ConnectionClosed as closed:
            assert closed.rcvd and closed.rcvd.code == 4401, closed
        return time.perf_counter() - start

    times = []
    for ws, token in list(zip(opened, tokens))[:LOGOUTS]:
        times.append(await closed_after_logout(ws, token))
    slowest = sorted(range(len(times)), key=lambda i: -times[i])[:3]
    print(f"   logout call to close frame (4401), {LOGOUTS} sessions one after another: p50 {ms(pct(times, 50))}, p99 {ms(pct(times, 99))}, "
          f"max {ms(max(times))} (slowest: " + ", ".join(f"#{i + 1} {ms(times[i])}" for i in slowest) + ")")
    for ws in opened[LOGOUTS:]:
        await ws.close()


if __name__ == "__main__":
    main()
