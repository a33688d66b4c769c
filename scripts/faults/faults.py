"""Fault tests against two server instances (A and B) that share a PostgreSQL cluster and a Redis
of their own (run.sh starts them, and the small scripts in FAULTS_WORK that stop and start them).

1. PostgreSQL stops (immediately, as in a crash) under a mixed load of reads and writes through
   both instances, stays away OUTAGE seconds, and starts again. While it is away every request
   answers 503 `unavailable` with Retry-After (never a 500 or a hang: none may take longer than
   BOUND seconds), the instances recover by themselves, and every write acknowledged with a 2xx
   (a ledger of created reports and users) is there afterwards, read back through the API.
2. Redis stops and starts again (empty). While it is away, signing in, the API and a WebSocket's
   sign-in keep working (sessions are checked in PostgreSQL), sign-in attempts are still limited
   (each instance alone), and an event raised on A reaches A's own sockets. After it is back, an
   event raised on A reaches a socket that has stayed open on B, which only Redis pub/sub carries:
   real-time delivery between instances resumes by itself.
3. A third instance, C, whose dispatcher sleeps (OUTBOX_POLL_MS=60000), acknowledges a report's
   submission with a 200 and is killed with SIGKILL at once, while the webhook's receiver is not
   listening yet (every attempt is refused). The event was written in the change's transaction,
   so it survives: once the receiver listens, and C is back, it arrives within EVENT_DEADLINE
   seconds, its signature verified with the Standard Webhooks library. Then a burst of events
   through A, B and C, whose three dispatchers compete for the deliveries: each `webhook-id`
   arrives exactly once (the receiver answers 204: at least once allows a repeat only after a
   failure).

4. The mail server is down when the CEO invites someone through A: the invitation's e-mail, written
   in the same transaction, waits in the outbox while A and B retry; once a mail server listens
   (MailDev) it arrives within MAIL_DEADLINE seconds, and exactly once.

FAULTS_BREAK breaks the setup on purpose, to see the checks fail: `lose-write` deletes one
acknowledged user in the database before the ledger is checked; `redis-elsewhere` brings Redis
back on another port, so the instances never find it again; `lose-event` deletes the killed
instance's event (from the outbox, and any delivery made of it) before the receiver listens;
`send-twice` asks for one delivered event of the burst again (redeliver), as a dispatcher that
sent it twice would; `lose-mail` deletes the invitation's e-mail from the outbox while the mail
server is down.

Usage: faults.py URL_A URL_B (environment from run.sh)
"""

import base64
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlencode, urlsplit

from standardwebhooks.webhooks import Webhook, WebhookVerificationError
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

A, B = sys.argv[1], sys.argv[2]
NAMES = {A: "A", B: "B"}
WORK = os.environ["FAULTS_WORK"]
BREAK = os.environ.get("FAULTS_BREAK", "")
REDIS_PORT = urlsplit(os.environ["REDIS_URL"]).port
PG_PORT = urlsplit(os.environ["DATABASE_URL"]).port
PREFIX = os.environ["REDIS_PREFIX"]
# No request may take longer: the server waits at most 5 s for a database connection (a statement
# may run 15 s, but none of these is slow), and 500 ms for Redis.
BOUND = 7.0
OUTAGE = 7.0  # seconds PostgreSQL stays away: longer than the pool's 5 s wait
RECOVERY_DEADLINE = 30.0
RESUME_DEADLINE = 20.0
EVENT_DEADLINE = 30.0  # seconds from C's death to its event's delivery
# Seconds from the mail server's start to the invitation's arrival: the retries that failed while
# it was down space out (0.1 s, 0.6 s, 3 s, 9 s, 36 s at MAIL_RETRY_SCALE=0.01), so the next one
# may come up to 36 s after it listens.
MAIL_DEADLINE = 60.0
BURST = 30  # events raised through A, B and C at once
PASSWORD = "faults-staff-password"

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"  FAIL: {what}", flush=True)
    return ok


def log(text):
    print(text, flush=True)


def finish():
    if failures:
        log(f"faults: {len(failures)} check(s) failed")
        sys.exit(1)
    log("faults: all checks passed")
    sys.exit(0)


def end_if_broken(*modes):
    """A run broken on purpose (FAULTS_BREAK) ends after the part its break is in: the rest would
    only wait on what the break took away (Redis elsewhere, say), and what it proves is that part's
    check failing."""
    if BREAK in modes:
        log(f"faults: FAULTS_BREAK={BREAK}: the parts after this one are not run")
        finish()


def run(script, *args):
    subprocess.run([os.path.join(WORK, script), *args], check=True, stdout=subprocess.DEVNULL)


class Resp:
    def __init__(self, base, method, path, start, end, status, body, headers, error=None):
        self.base, self.method, self.path = base, method, path
        self.start, self.end, self.status, self.body, self.headers, self.error = start, end, status, body, headers, error

    @property
    def elapsed(self):
        return self.end - self.start

    @property
    def ok(self):
        return self.status is not None and 200 <= self.status < 300

    def __repr__(self):
        return f"{self.method} {NAMES.get(self.base, self.base)}{self.path} -> {self.status or self.error} in {self.elapsed:.2f}s {str(self.body)[:200]}"


def call(base, method, path, token=None, body=None, timeout=30):
    """One request on a connection of its own; transport errors come back as status None."""
    url = urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=timeout)
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = f"Bearer {token}"
    start = time.monotonic()
    try:
        conn.request(method, "/api/v1" + path, body=json.dumps(body) if body is not None else None, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        end = time.monotonic()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw[:200]
        return Resp(base, method, path, start, end, r.status, parsed, {k.lower(): v for k, v in r.getheaders()})
    except OSError as e:
        return Resp(base, method, path, start, time.monotonic(), None, None, {}, error=repr(e))
    finally:
        conn.close()


def refused(port):
    """Whether nothing listens on this loopback port any more (a stopped server)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return False
    except OSError:
        return True


def wait_until(condition, deadline, what):
    """Polls until `condition()` holds; fails the run if it does not within `deadline` seconds."""
    until = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > until:
            raise SystemExit(f"FAIL: {what} did not happen within {deadline}s")
        time.sleep(0.05)


def must(resp, *statuses):
    if resp.status not in statuses:
        sys.exit(f"setup failed: {resp!r}")
    return resp.body


def login(base, email, password):
    return must(call(base, "POST", "/auth/login", body={"email": email, "password": password}), 200)["token"]


def session_id(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["sid"]


def new_report(status="submitted"):
    return {"title": f"Faults {uuid.uuid4().hex[:12]}", "content": "Figures", "periodStart": "2026-01-01",
            "periodEnd": "2026-03-31", "status": status, "data": {"columns": ["Month", "Revenue"], "rows": [["Jan", 1]]}}


def new_user(department):
    email = f"u-{uuid.uuid4().hex[:12]}@faults.test"
    return {"fullName": "Faults Staff", "email": email, "password": PASSWORD, "role": "DepartmentUser", "departmentId": department}


# --- the world: an enterprise, its CEO and a department user, through the API --------------------

log("faults: building the world through the API")
admin = login(A, os.environ["FAULTS_ADMIN_EMAIL"], os.environ["FAULTS_ADMIN_PASSWORD"])
ent = must(call(A, "POST", "/enterprises", admin, {"name": "Faults", "description": "Fault tests", "ceoFullName": "Faults CEO",
                                                   "ceoEmail": "ceo@faults.test", "ceoPassword": "faults-ceo-password"}), 201)["id"]
ceo = login(A, "ceo@faults.test", "faults-ceo-password")
finance = next(d["id"] for d in must(call(A, "GET", f"/enterprises/{ent}/departments", ceo), 200) if d["type"] == "finance")
for email in ("user@faults.test", "other@faults.test"):
    must(call(A, "POST", "/users", ceo, {**new_user(finance), "email": email}), 201)
user = login(A, "user@faults.test", PASSWORD)


# --- 1. PostgreSQL restarted under load ----------------------------------------------------------

log("faults: PostgreSQL restarted under a mixed load of reads and writes through A and B")
results = []  # every Resp of the load
ledger_reports, ledger_users = {}, {}  # acknowledged writes: id -> title / e-mail
stop_load = threading.Event()


def worker(kind, seed):
    rnd = random.Random(seed)
    n = 0
    while not stop_load.is_set():
        base = (A, B)[n % 2]
        n += 1
        if kind == "report":
            body = new_report()
            r = call(base, "POST", f"/departments/{finance}/reports", user, body)
            if r.status == 201:
                ledger_reports[r.body["id"]] = body["title"]
        elif kind == "user":
            body = new_user(finance)
            r = call(base, "POST", "/users", ceo, body)
            if r.status == 201:
                ledger_users[r.body["id"]] = body["email"]
        else:
            choice = rnd.randrange(4)
            known = list(ledger_reports)
            if choice == 0 and known:
                r = call(base, "GET", f"/reports/{rnd.choice(known)}", user)
            elif choice == 1:
                r = call(base, "GET", f"/departments/{finance}/reports?pageSize=20", user)
            elif choice == 2:
                r = call(base, "GET", "/users?pageSize=20", ceo)
            else:
                r = call(base, "GET", "/auth/me", user)
        results.append(r)
        time.sleep(0.05)


threads = [threading.Thread(target=worker, args=(kind, i), daemon=True)
           for i, kind in enumerate(["report", "report", "user", "read", "read", "read"])]
for t in threads:
    t.start()
# Some load answered before the crash.
wait_until(lambda: sum(r.ok for r in list(results)) >= 100, 30, "100 requests answered under load")

# A session whose live answer is not cached in Redis (it expired, or Redis lost it) is checked in
# PostgreSQL: while PostgreSQL is away, that too must be a 503, not a 500 or a closed session.
uncached = login(B, "other@faults.test", PASSWORD)

probes = {}


def uncached_request():
    probes["uncached"] = r = call(B, "GET", "/auth/me", uncached)
    results.append(r)


def uncached_socket():
    try:
        with connect(B.replace("http", "ws", 1) + "/api/v1/ws", open_timeout=5, close_timeout=2, ping_interval=None) as ws:
            ws.send(json.dumps({"type": "auth", "token": uncached}))
            try:
                probes["socket"] = ws.recv(timeout=BOUND)
            except ConnectionClosed:
                probes["socket"] = f"closed {ws.close_code} {ws.close_reason!r}"
    except (OSError, TimeoutError) as e:
        probes["socket"] = repr(e)


def outage_sign_in(i):
    # As many attempts as the sign-in limit per account and client allows (5): none of them can
    # check a password, so none may count against the next sign-in.
    r = call((A, B)[i % 2], "POST", "/auth/login", body={"email": "other@faults.test", "password": PASSWORD})
    results.append(r)


t_stop = time.monotonic()
run("pg-stop")
log(f"  PostgreSQL stopped (immediate) {t_stop - results[0].start:.1f}s into the load")
wait_until(lambda: refused(PG_PORT), 10, "PostgreSQL gone")
# While PostgreSQL is away: a session whose live answer is not cached, a socket signing in with
# it, and sign-ins.
subprocess.run(["redis-cli", "-p", str(REDIS_PORT), "DEL", f"{PREFIX}session:{session_id(uncached)}"], check=True, stdout=subprocess.DEVNULL)
probe_threads = [threading.Thread(target=uncached_request, daemon=True), threading.Thread(target=uncached_socket, daemon=True)]
probe_threads += [threading.Thread(target=outage_sign_in, args=(i,), daemon=True) for i in range(5)]
for t in probe_threads:
    t.start()
time.sleep(max(0.0, t_stop + OUTAGE - time.monotonic()))
run("pg-start")
t_up = time.monotonic()
log(f"  PostgreSQL accepting connections again after {t_up - t_stop:.1f}s")

recovered = {}
while len(recovered) < 2 and time.monotonic() < t_up + RECOVERY_DEADLINE:
    for r in list(results):
        if r.start >= t_up and r.ok and r.base not in recovered:
            recovered[r.base] = r.end
    time.sleep(0.1)
if check(len(recovered) == 2, f"both instances answer again within {RECOVERY_DEADLINE:.0f}s of PostgreSQL's return"):
    settled = max(recovered.values()) + 1.0
    time.sleep(max(0.0, settled + 3.0 - time.monotonic()))
else:
    settled = None
stop_load.set()
for t in threads + probe_threads:
    t.join(timeout=40)

uncached_probe = probes.get("uncached")
log(f"  a session not cached in Redis, while PostgreSQL is away: {uncached_probe!r}")
check(uncached_probe is not None and uncached_probe.status == 503 and (uncached_probe.body or {}).get("code") == "unavailable",
      f"a request whose session is not cached answers 503 unavailable while PostgreSQL is away: {uncached_probe!r}")
log(f"  a WebSocket signing in with that session, while PostgreSQL is away: {probes.get('socket')}")
check("closed 1013" in str(probes.get("socket")),
      "a WebSocket whose session cannot be checked (PostgreSQL away) is closed with 1013 (try again), "
      f"not 4401 (which signs the user out): {probes.get('socket')}")
after = call(A, "POST", "/auth/login", body={"email": "other@faults.test", "password": PASSWORD})
log(f"  signing in after 5 attempts refused during the outage: {after.status}")
check(after.status == 200, f"sign-ins refused during the outage do not count against the sign-in limit: {after!r}")

statuses = {}
for r in results:
    statuses[r.status or r.error] = statuses.get(r.status or r.error, 0) + 1
away = [r for r in results if r.start < t_up and r.end > t_stop]
unavailable = [r for r in results if r.status == 503]
bad = [r for r in results if not (r.ok or r.status == 503)]
check(not bad, f"every answer is a 2xx or a 503; also got {len(bad)}: {bad[:5]}")
wrong_503 = [r for r in unavailable if (r.body or {}).get("code") != "unavailable" or "retry-after" not in r.headers]
check(not wrong_503, f"every 503 is `unavailable` with Retry-After: {wrong_503[:5]}")
slowest = max(results, key=lambda r: r.elapsed)
check(slowest.elapsed <= BOUND, f"no request takes longer than {BOUND}s: {slowest!r}")
check(len(unavailable) > 0, "the outage was seen: some requests answered 503")
if settled is not None:
    late = [r for r in results if r.start >= settled and not r.ok]
    check(not late, f"once recovered, every request succeeds: {late[:5]}")

if BREAK == "lose-write" and ledger_users:
    lost = next(iter(ledger_users))
    subprocess.run(["psql", os.environ["DATABASE_URL"], "-qc", f"delete from public.users where id = '{lost}'"], check=True)
    log(f"  FAULTS_BREAK=lose-write: deleted acknowledged user {lost} behind the API's back")

missing = []
for rid, title in ledger_reports.items():
    r = call(A, "GET", f"/reports/{rid}", user)
    if not (r.status == 200 and r.body["title"] == title):
        missing.append(("report", rid, r.status))
for uid, email in ledger_users.items():
    r = call(B, "GET", f"/users/{uid}", ceo)
    if not (r.status == 200 and r.body["email"] == email):
        missing.append(("user", uid, r.status))
check(len(ledger_reports) > 0 and len(ledger_users) > 0, "writes were acknowledged")
check(not missing, f"every acknowledged write is there after the restart; missing: {missing[:5]}")
acked_last = sum(1 for r in results if r.ok and r.method == "POST" and t_stop - 2 <= r.end <= t_stop)
pg_numbers = {
    "requests": len(results),
    "statuses": statuses,
    "max_latency_while_away": max((r.elapsed for r in away), default=0.0),
    "max_latency": slowest.elapsed,
    "recovery": {NAMES[b]: round(t - t_up, 2) for b, t in recovered.items()},
    "acknowledged": len(ledger_reports) + len(ledger_users),
    "verified": len(ledger_reports) + len(ledger_users) - len(missing),
}
log(f"  {len(results)} requests {statuses}; {len(away)} overlapped the outage, "
    f"max latency while away {pg_numbers['max_latency_while_away']:.2f}s, max overall {slowest.elapsed:.2f}s")
log(f"  recovered (first 2xx after PostgreSQL's return): " + ", ".join(f"{k} {v:.2f}s" for k, v in pg_numbers["recovery"].items()))
log(f"  acknowledged writes: {len(ledger_reports)} reports, {len(ledger_users)} users ({acked_last} in the 2s before the crash); "
    f"verified after recovery: {pg_numbers['verified']}")


end_if_broken("lose-write")

# --- 2. Redis stopped and started again -----------------------------------------------------------

log("faults: Redis stopped, then started again (empty)")


class Listener(threading.Thread):
    """A signed-in WebSocket that records every event it receives, and how it ended."""

    def __init__(self, base, token):
        super().__init__(daemon=True)
        self.name_ = NAMES[base]
        self.ws = connect(base.replace("http", "ws", 1) + "/api/v1/ws", open_timeout=5, close_timeout=2, ping_interval=None)
        self.ws.send(json.dumps({"type": "auth", "token": token}))
        ready = self.ws.recv(timeout=BOUND)
        if json.loads(ready) != {"type": "ready"}:
            raise RuntimeError(f"socket on {self.name_} not ready: {ready}")
        self.events = []  # (monotonic time, event)
        self.closed = None
        self.start()

    def run(self):
        try:
            for message in self.ws:
                self.events.append((time.monotonic(), json.loads(message)))
        except ConnectionClosed:
            pass
        self.closed = (self.ws.close_code, self.ws.close_reason)

    def got(self, report_id):
        return next((t for t, e in self.events if e.get("type") == "report.status_changed" and e.get("reportId") == report_id), None)

    def wait(self, report_id, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if (t := self.got(report_id)) is not None:
                return t
            time.sleep(0.05)
        return None

    def close(self):
        self.ws.close()
        self.join(timeout=5)


def raise_event(base):
    """A report submitted through `base`: its author, head and CEO hear report.status_changed."""
    rid = must(call(base, "POST", f"/departments/{finance}/reports", user, new_report("draft")), 201)["id"]
    r = call(base, "PUT", f"/reports/{rid}", user, {"status": "submitted"})
    must(r, 200)
    return rid, r


ceo_on_b = Listener(B, ceo)
ceo_on_a = Listener(A, ceo)
rid, _ = raise_event(A)
check(ceo_on_b.wait(rid, 5) is not None, "with Redis up, an event raised on A reaches a socket on B")

t_down = time.monotonic()
run("redis-stop")
log("  Redis stopped")
wait_until(lambda: refused(REDIS_PORT), 10, "Redis gone")
while_down = []
for base in (A, B):
    r = call(base, "POST", "/auth/login", body={"email": "user@faults.test", "password": PASSWORD})
    while_down.append(r)
    if check(r.status == 200, f"signing in on {NAMES[base]} works without Redis: {r!r}"):
        token = r.body["token"]
        while_down.append(me := call(base, "GET", "/auth/me", token))
        check(me.status == 200, f"a new session's token works on {NAMES[base]} without Redis: {me!r}")
        while_down.append(other := call((B, A)[base == B], "GET", "/auth/me", token))
        check(other.status == 200, f"...and on the other instance: {other!r}")
        try:
            probe = Listener(B, token)
            probe.close()
        except Exception as e:  # noqa: BLE001 - any failure to sign the socket in is the finding
            check(False, f"a WebSocket signs in on B without Redis: {e!r}")
    while_down.append(r := call(base, "GET", "/users?pageSize=20", ceo))
    check(r.status == 200, f"an existing session works on {NAMES[base]} without Redis: {r!r}")
rid, r = raise_event(A)
while_down.append(r)
check(ceo_on_a.wait(rid, 3) is not None, "without Redis, an event raised on A still reaches A's own sockets")
attempts = [call(A, "POST", "/auth/login", body={"email": "nobody@faults.test", "password": "wrong-password-for-faults"}) for _ in range(8)]
while_down += attempts
limited = [a.status for a in attempts]
log(f"  without Redis: sign-ins {[r.status for r in while_down[:2]]}, 8 wrong passwords for one account on A: {limited}")
check(limited[:5] == [401] * 5 and 429 in limited, f"without Redis, sign-in attempts are still limited (5 per account and client): {limited}")
slowest_down = max(while_down, key=lambda r: r.elapsed)
check(slowest_down.elapsed <= BOUND, f"no request takes longer than {BOUND}s without Redis: {slowest_down!r}")
log(f"  {len(while_down)} requests without Redis, slowest {slowest_down.elapsed:.2f}s")
time.sleep(max(0.0, t_down + 4.0 - time.monotonic()))

if BREAK == "redis-elsewhere":
    run("redis-start", str(REDIS_PORT + 1))
    log(f"  FAULTS_BREAK=redis-elsewhere: Redis back on port {REDIS_PORT + 1}, where nobody looks")
else:
    run("redis-start")
t_up = time.monotonic()
log(f"  Redis answering again after {t_up - t_down:.1f}s")
resumed = None
raised = []
while time.monotonic() < t_up + RESUME_DEADLINE and ceo_on_b.closed is None:
    raised.append(raise_event(A)[0])
    delivered = [(ceo_on_b.got(r), r) for r in raised if ceo_on_b.got(r) is not None]
    if delivered:
        resumed = min(delivered)[0] - t_up
        break
    time.sleep(0.25)
check(ceo_on_b.closed is None, f"the socket on B stayed open through the Redis outage: closed {ceo_on_b.closed}")
if check(resumed is not None, f"events raised on A reach the socket on B again within {RESUME_DEADLINE:.0f}s of Redis' return"):
    log(f"  delivery from A to B resumed {resumed:.2f}s after Redis answered ({len(raised)} events raised)")
r = call(B, "POST", "/auth/login", body={"email": "user@faults.test", "password": PASSWORD})
check(r.status == 200, f"signing in works after Redis is back: {r!r}")
ceo_on_a.close()
ceo_on_b.close()


end_if_broken("redis-elsewhere")

# --- 3. An acknowledged change's webhook event outlives the instance that made it ----------------

log("faults: C acknowledges a report's submission and is killed (SIGKILL) at once; the event still arrives")
SERVER_BIN, PORT_C = os.environ["FAULTS_SERVER_BIN"], int(os.environ["FAULTS_PORT_C"])
C = f"http://127.0.0.1:{PORT_C}"
NAMES[C] = "C"


class Receiver:
    """A webhook receiver on 127.0.0.1: bound at once (its port is known, and taken), listening only
    from open() on: until then every connection to it is refused. It verifies each delivery with
    the webhook's secret and answers 204 (401 to one that does not verify)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.secret = None
        self.arrivals = []  # (monotonic time, webhook-id, verified, payload)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    payload = Webhook(receiver.secret).verify(body, headers)
                    verified = True
                except WebhookVerificationError:
                    payload, verified = json.loads(body), False
                time.sleep(0.02)  # a receiver that takes a moment: room for a second sender to overlap
                with receiver.lock:
                    receiver.arrivals.append((time.monotonic(), headers.get("webhook-id"), verified, payload))
                self.send_response(204 if verified else 401)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self.server.daemon_threads = True
        self.server.request_queue_size = 128  # three dispatchers, 16 sends in flight each
        self.server.server_bind()
        self.port = self.server.server_address[1]

    def open(self):
        self.server.server_activate()
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def got(self, report_id):
        with self.lock:
            return [a for a in self.arrivals if (a[3].get("data") or {}).get("reportId") == report_id]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def ready(base):
    conn = http.client.HTTPConnection("127.0.0.1", urlsplit(base).port, timeout=1)
    try:
        conn.request("GET", "/readyz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def start_c(name, **env):
    """Starts instance C (log server-<name>.log) and waits until it is ready."""
    log_file = open(os.path.join(WORK, f"server-{name}.log"), "wb")
    process = subprocess.Popen([SERVER_BIN, "serve"], env={**os.environ, "BIND_ADDR": f"127.0.0.1:{PORT_C}", **env},
                               stdout=log_file, stderr=subprocess.STDOUT)
    wait_until(lambda: process.poll() is not None or ready(C), 20, f"C ({name}) ready")
    if process.poll() is not None:
        sys.exit(f"C ({name}) exited at start: see {WORK}/server-{name}.log")
    return process


def sql(query):
    out = subprocess.run(["psql", os.environ["DATABASE_URL"], "-Atqc", query], check=True, capture_output=True, text=True)
    return out.stdout.strip()


receiver = Receiver()
# The fan-out matches an event with the webhooks that exist when it runs, not when the event was
# committed: an event of section 2 still waiting in the outbox would reach this new webhook too.
wait_until(lambda: sql("select count(*) from public.outbox where kind = 'webhook'") == "0", 10, "the outbox drained before the webhook is made")
hook = must(call(A, "POST", "/webhooks", ceo, {"url": f"http://127.0.0.1:{receiver.port}/hook", "events": ["report.submitted"],
                                                "description": "faults"}), 201)
receiver.secret = hook["secret"]
c_processes = []
try:
    # C's dispatcher makes one pass at start, then sleeps a minute: it cannot send what C commits.
    c_processes.append(start_c("c-1", OUTBOX_POLL_MS="60000"))
    rid = must(call(A, "POST", f"/departments/{finance}/reports", user, new_report("draft")), 201)["id"]
    submitted = call(C, "PUT", f"/reports/{rid}", user, {"status": "submitted"})
    c_processes[0].send_signal(signal.SIGKILL)
    t_kill = time.monotonic()
    c_processes[0].wait()
    check(submitted.status == 200, f"C acknowledges the submission: {submitted!r}")
    state = sql("select (select count(*) from public.outbox where kind = 'webhook') || ' event(s) in the outbox, deliveries: ' || "
                "coalesce((select string_agg(status || ' after ' || attempts || ' attempt(s)', '; ') from public.webhook_deliveries "
                f"where webhook_id = '{hook['id']}'), 'none')")
    log(f"  C answered {submitted.status} and was killed {1000 * (t_kill - submitted.end):.1f} ms later; just after: {state}")
    # A and B (their dispatchers run) find the event and try: the receiver refuses, they retry.
    wait_until(lambda: sql(f"select count(*) from public.webhook_deliveries where webhook_id = '{hook['id']}' "
                           "and attempts > 0 and last_error = 'connection_failed'") == "1", 10,
               "a first attempt refused by the receiver that does not listen yet")
    if BREAK == "lose-event":
        sql(f"delete from public.outbox where kind = 'webhook'; delete from public.webhook_deliveries where webhook_id = '{hook['id']}'")
        log("  FAULTS_BREAK=lose-event: deleted the event (outbox and deliveries) behind the server's back")
    tried = sql(f"select coalesce(max(attempts), 0) from public.webhook_deliveries where webhook_id = '{hook['id']}'")
    receiver.open()
    t_open = time.monotonic()
    # C again, its dispatcher awake (the default 200 ms): three dispatchers from here on.
    c_processes.append(start_c("c-2", OUTBOX_POLL_MS="200"))
    log(f"  the receiver listens {t_open - t_kill:.1f}s after the kill ({tried} attempt(s) refused until then); C restarted")
    until = t_kill + EVENT_DEADLINE
    while not receiver.got(rid) and time.monotonic() < until:
        time.sleep(0.05)
    arrived = receiver.got(rid)
    if check(arrived, f"the event C acknowledged before it was killed is delivered within {EVENT_DEADLINE:.0f}s"):
        t, msg, verified, payload = arrived[0]
        log(f"  delivered {t - t_kill:.2f}s after the kill ({t - t_open:.2f}s after the receiver listened): {msg} {payload['type']}")
        check(verified, "its signature verifies with the webhook's secret (standardwebhooks)")
        check(payload["type"] == "report.submitted" and payload["data"]["status"] == "submitted",
              f"it is the submission: {payload}")
        deliveries = must(call(A, "GET", f"/webhooks/{hook['id']}/deliveries", ceo), 200)["items"]
        mine = [d for d in deliveries if f"msg_{d['id'].replace('-', '')}" == msg]
        check(len(mine) == 1 and mine[0]["status"] == "delivered" and mine[0]["attempts"] >= 2,
              f"the delivery is `delivered`, after at least one attempt the closed receiver refused: {mine}")

    log(f"  {BURST} reports submitted at once through A, B and C: three dispatchers compete for the deliveries")
    burst = {}

    def submit_through(base, n):
        for _ in range(n):
            r = call(base, "POST", f"/departments/{finance}/reports", user, new_report("submitted"))
            if r.status == 201:
                burst[r.body["id"]] = NAMES[base]

    threads = [threading.Thread(target=submit_through, args=(base, BURST // 3)) for base in (A, B, C)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    check(len(burst) == BURST, f"every report of the burst is created: {len(burst)} of {BURST}")
    until = time.monotonic() + EVENT_DEADLINE
    while time.monotonic() < until and not all(receiver.got(r) for r in burst):
        time.sleep(0.05)
    late = [r for r in burst if not receiver.got(r)]
    check(not late, f"every event of the burst arrives within {EVENT_DEADLINE:.0f}s; missing {len(late)}: {late[:3]}")
    if BREAK == "send-twice" and burst:
        first = receiver.got(next(iter(burst)))[0][1]
        delivery = str(uuid.UUID(first.removeprefix("msg_")))
        must(call(A, "POST", f"/webhooks/{hook['id']}/deliveries/{delivery}/redeliver", ceo), 202)
        log(f"  FAULTS_BREAK=send-twice: asked for {first} again")
    time.sleep(2.0)  # anything sent twice arrives by now
    with receiver.lock:
        arrivals = list(receiver.arrivals)
    ids = [a[1] for a in arrivals]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    check(not twice, f"each webhook-id arrives once when the receiver answers 204: {len(twice)} arrived more than once: {twice[:3]}")
    check(all(a[2] for a in arrivals), f"every delivery verifies: {[a[1] for a in arrivals if not a[2]][:3]}")
    events = len(burst) + (BREAK != "lose-event")
    check(len(arrivals) == events + (BREAK == "send-twice"), f"as many deliveries as events: {len(arrivals)} for {events} events")
    deliveries = must(call(A, "GET", f"/webhooks/{hook['id']}/deliveries?pageSize=100", ceo), 200)
    once = [d for d in deliveries["items"] if d["status"] == "delivered" and d["attempts"] == 1]
    check(deliveries["total"] == events and all(d["status"] == "delivered" for d in deliveries["items"]) and len(once) >= len(burst),
          f"one delivery per event, each delivered, those of the burst at the first attempt: "
          f"{[(d['status'], d['attempts']) for d in deliveries['items'] if d['attempts'] != 1 or d['status'] != 'delivered']}")
    log(f"  {len(arrivals)} deliveries for {events} events, through {sorted(set(burst.values()))}; "
        f"each webhook-id once: {not twice}")
finally:
    for process in c_processes:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    receiver.close()

end_if_broken("lose-event", "send-twice")

log("faults: the mail server is down when an invitation is made, then comes up: the e-mail arrives once")
mail_smtp, mail_http = int(os.environ["FAULTS_SMTP_PORT"]), int(os.environ["FAULTS_MAIL_HTTP_PORT"])
invitee = f"invited-{uuid.uuid4().hex[:8]}@faults.test"
made = must(call(A, "POST", "/users", ceo, {"fullName": "Invited Person", "email": invitee, "role": "DepartmentUser",
                                             "departmentId": finance}), 201)
check(made["invitation"]["status"] == "pending", f"the person is invited: {made}")
mine = f"kind = 'email' and recipient_id = '{made['id']}'"
if BREAK == "lose-mail":
    sql(f"delete from public.outbox where {mine}")
    log("  FAULTS_BREAK=lose-mail: deleted the e-mail from the outbox behind the server's back")
else:
    wait_until(lambda: sql(f"select count(*) from public.outbox where {mine} and attempts >= 2") == "1", 20,
               "two attempts refused while the mail server is down")
failed_attempts = sql(f"select coalesce(max(attempts), 0) from public.outbox where {mine}")
log(f"  {failed_attempts} attempt(s) failed; the mail server starts")
maildev_log = open(os.path.join(WORK, "maildev.log"), "wb")
maildev = subprocess.Popen(["node", os.environ["MAILDEV_BIN"], "--ip", "127.0.0.1", "--smtp", str(mail_smtp),
                            "--web", str(mail_http), "--mail-directory", os.path.join(WORK, "mail")],
                           stdout=maildev_log, stderr=subprocess.STDOUT)


def maildev_answers():
    conn = http.client.HTTPConnection("127.0.0.1", mail_http, timeout=1)
    try:
        conn.request("GET", "/healthz")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


# From when the mail server answers (its start takes seconds on a loaded machine).
wait_until(lambda: maildev.poll() is not None or maildev_answers(), 60, "the mail server listening")
if maildev.poll() is not None:
    with open(os.path.join(WORK, "maildev.log")) as f:
        sys.exit(f"the mail server exited at start: {f.read()[-2000:]}")
t_up = time.monotonic()


def mailbox():
    """MailDev's messages to the invitee (its API: GET /email?to.address=)."""
    conn = http.client.HTTPConnection("127.0.0.1", mail_http, timeout=2)
    try:
        conn.request("GET", "/email?" + urlencode({"to.address": invitee}))
        return json.loads(conn.getresponse().read())
    except OSError:
        return []
    finally:
        conn.close()


try:
    until = t_up + MAIL_DEADLINE
    while not mailbox() and time.monotonic() < until:
        time.sleep(0.1)
    if check(mailbox(), f"the invitation arrives within {MAIL_DEADLINE:.0f}s of the mail server's start"):
        log(f"  arrived {time.monotonic() - t_up:.1f}s after the mail server started")
        wait_until(lambda: sql(f"select count(*) from public.outbox where {mine}") == "0", 10, "the invitation out of the outbox")
        time.sleep(1.0)  # a second sending would arrive by now
        got = mailbox()
        check(len(got) == 1, f"the invitation arrives once: {len(got)} message(s)")
        check("/accept-invitation?token=" in got[0]["text"], "it carries its link")
finally:
    maildev.terminate()
    maildev.wait()

finish()
