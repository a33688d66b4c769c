"""Tenancy benchmarks (issue 3). Run through bench/tenancy.sh, which starts a release server.

1. POST /enterprises latency over N enterprises, beside the floor: the same statements run as
   one raw SQL transaction per enterprise (no HTTP, no argon2, no JSON).
2. `backend migrate`: a no-op with T tenants, then an additive tenant migration (a nullable
   column and an index) across them.
3. A tenant-scoped read (GET /enterprises/{id}/departments) and DELETE /users/{id} (a write on
   the shared users table) on a platform of 10 tenants and on one of MANY_TENANTS: two servers
   and two databases side by side, their requests interleaved, after `vacuum analyze` and with
   autovacuum idle (steady state, not the minute after a burst of creations).

Everything is bounded: fixed counts, fixed durations, loopback only.
"""

import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import psycopg

from common import call, login, ms, pct

DB = os.environ["DATABASE_URL"]
BIN = os.environ["BENCH_BIN"]
ROOT = pathlib.Path(__file__).resolve().parent.parent
CREATE_N = int(os.environ.get("CREATE_N", "100"))
MIGRATE_TENANTS = int(os.environ.get("MIGRATE_TENANTS", "1000"))
MANY_TENANTS = int(os.environ.get("MANY_TENANTS", "10000"))
READS = int(os.environ.get("READS", "500"))
DELETES = int(os.environ.get("DELETES", "20"))


def create_enterprise(token, tag, base=None):
    body = {"name": f"Bench {tag}", "ceoFullName": "Bench CEO", "ceoEmail": f"ceo-{tag}@bench.example", "ceoPassword": "bench-password"}
    t = time.perf_counter()
    status, created = call("POST", "/api/v1/enterprises", token, body, base=base)
    assert status == 201, status
    return time.perf_counter() - t, created["id"]


BASELINE = "\n;\n".join(p.read_text() for p in sorted((ROOT / "tenant-migrations").glob("*.sql")))
VERSION = max(int(p.name.split("_")[0]) for p in (ROOT / "tenant-migrations").glob("*.sql"))
FLOOR_HASH = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$9m0yQm2gC3s6sQ7Q0e1pXQbYk2V3zq0Xr3m3nXyP9mE"


def floor_transaction(conn):
    """The same rows and DDL as POST /enterprises, as one raw SQL transaction; its duration."""
    eid = uuid.uuid4()
    schema = f"t_{eid.hex}"
    t = time.perf_counter()
    with conn.transaction():
        conn.execute("insert into public.enterprises (id, name, description, schema_name) values (%s, %s, '', %s)", (eid, f"Floor {eid.hex}", schema))
        conn.execute(f'create schema "{schema}"')
        conn.execute("select set_config('search_path', %s, true)", (schema,))
        conn.execute(BASELINE)
        conn.execute("select set_config('search_path', 'public', true)")
        conn.execute("insert into public.tenant_schemas (schema_name, enterprise_id, version) values (%s, %s, %s)", (schema, eid, VERSION))
        conn.execute("select set_config('search_path', %s, true)", (schema,))
        conn.execute(
            "insert into departments (id, type) select * from unnest(%s::uuid[], %s::text[])",
            ([uuid.uuid4() for _ in range(5)], ["finance", "operations", "sales_marketing", "human_resources", "information_technology"]),
        )
        conn.execute(
            "insert into public.users (id, enterprise_id, role, full_name, email, password_hash) values (%s, %s, 'EnterpriseCeo', 'CEO', %s, %s)",
            (uuid.uuid4(), eid, f"floor-{eid.hex}@bench.example", FLOOR_HASH),
        )
    return time.perf_counter() - t


def floor_transactions(n, workers=1):
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(floor_transactions, [n // workers + (1 if i < n % workers else 0) for i in range(workers)]))
        return
    with psycopg.connect(DB, autocommit=True) as conn:
        for _ in range(n):
            floor_transaction(conn)


def run_migrate(args):
    t = time.perf_counter()
    out = subprocess.run([BIN, "migrate", *args], capture_output=True, text=True, env=os.environ)
    elapsed = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    return elapsed, out.stdout.strip().splitlines()[-1]


def tenant_count(db=DB):
    with psycopg.connect(db) as conn:
        return conn.execute("select count(*) from public.tenant_schemas where enterprise_id is not null").fetchone()[0]


def grow_tenants(token, target, tag):
    """Creates enterprises until `target` exist, 4 requests at a time (or, with
    GROW_WITH_SQL=1, with the floor's SQL transactions: the same schema, ten times faster)."""
    need = target - tenant_count()
    if need <= 0:
        return
    t = time.perf_counter()
    if os.environ.get("GROW_WITH_SQL") == "1":
        floor_transactions(need, workers=4)
        print(f"   (created {need} tenants with SQL in {time.perf_counter() - t:.0f} s)", flush=True)
        return
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(lambda i: create_enterprise(token, f"{tag}-{i}"), range(need)))
    print(f"   (created {need} enterprises in {time.perf_counter() - t:.0f} s)", flush=True)


def settle(db=DB):
    """Steady state after a burst of creations: `vacuum analyze`, then no autovacuum worker busy
    (on 2 cores, one vacuuming the grown catalogs takes half the machine)."""
    t = time.perf_counter()
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("vacuum analyze")
        for _ in range(600):
            busy = conn.execute("select count(*) from pg_stat_activity where backend_type = 'autovacuum worker'").fetchone()[0]
            if busy == 0:
                break
            time.sleep(1)
    print(f"   (vacuum analyze and autovacuum settled in {time.perf_counter() - t:.0f} s)", flush=True)


def alternate(n, first, second, warmup=20):
    """n durations of each function, interleaved (ABBA) so both see the same machine. A function
    that returns a number returns its own duration; otherwise the call is timed."""
    for _ in range(warmup):
        first()
        second()
    a, b = [], []
    for i in range(n):
        for fn, out in ((first, a), (second, b)) if i % 2 == 0 else ((second, b), (first, a)):
            t = time.perf_counter()
            own = fn()
            out.append(own if isinstance(own, float) else time.perf_counter() - t)
    return a, b


class Platform:
    """One server and its database, with a "reader" enterprise whose CEO does the timed calls."""

    def __init__(self, base, db):
        self.base, self.db = base, db
        self.admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"], base=base)
        self.reader = create_enterprise(self.admin, "reader", base=base)[1]
        self.ceo = login("ceo-reader@bench.example", "bench-password", base=base)

    def read(self):
        call("GET", f"/api/v1/enterprises/{self.reader}/departments", self.ceo, base=self.base)

    def leavers(self, n):
        """n staff users, and a function deleting the next one each time it is called."""
        ids = []
        for i in range(n + 20):
            body = {"fullName": "Leaver", "email": f"leaver-{i}@bench.example", "password": "bench-password", "role": "DepartmentUser", "enterpriseId": self.reader}
            status, user = call("POST", "/api/v1/users", self.ceo, body, base=self.base)
            assert status == 201, (status, user)
            ids.append(user["id"])

        def delete():
            status, _ = call("DELETE", f"/api/v1/users/{ids.pop()}", self.ceo, base=self.base)
            assert status == 204, status

        return delete


def main():
    small = Platform(os.environ["SMALL_BASE"], os.environ["SMALL_DB_URL"])
    for i in range(9):
        create_enterprise(small.admin, f"s{i}", base=small.base)
    large = Platform(os.environ["BENCH_BASE"], DB)
    admin = large.admin

    if os.environ.get("ONLY_READS") != "1":
        sections_1_and_2(admin)

    grow_tenants(admin, MANY_TENANTS, "g")
    settle(small.db)
    settle(large.db)
    n_small, n_large = tenant_count(small.db), tenant_count(large.db)
    print(f"## 3. {n_small} tenants beside {n_large}, two servers, requests interleaved")
    a, b = alternate(READS, small.read, large.read)
    print(f"   GET /enterprises/{{id}}/departments as the CEO, {READS} each:")
    print(f"     {n_small} tenants: p50 {ms(pct(a, 50))}, p99 {ms(pct(a, 99))}")
    print(f"     {n_large} tenants: p50 {ms(pct(b, 50))}, p99 {ms(pct(b, 99))}")
    print(f"     ratio of p50s: {pct(b, 50) / pct(a, 50):.2f}x")
    a, b = alternate(DELETES, small.leavers(DELETES), large.leavers(DELETES), warmup=10)
    print(f"   DELETE /users/{{id}} (a write on the shared users table), {DELETES} each:")
    print(f"     {n_small} tenants: p50 {ms(pct(a, 50))}; {n_large} tenants: p50 {ms(pct(b, 50))}; ratio {pct(b, 50) / pct(a, 50):.2f}x")


def sections_1_and_2(admin):
    print(f"## 1. POST /enterprises beside the raw SQL floor, {CREATE_N} each, interleaved")
    with psycopg.connect(DB, autocommit=True) as conn:
        api, floor = alternate(CREATE_N, lambda: create_enterprise(admin, f"c{uuid.uuid4().hex}")[0], lambda: floor_transaction(conn), warmup=5)
    print(f"   API:   p50 {ms(pct(api, 50))}, p95 {ms(pct(api, 95))} (includes argon2id of the CEO password)")
    print(f"   floor: p50 {ms(pct(floor, 50))}, p95 {ms(pct(floor, 95))}")
    print(f"   ratio of p50s: {pct(api, 50) / pct(floor, 50):.2f}x", flush=True)

    print(f"## 2. backend migrate with {MIGRATE_TENANTS} tenants")
    grow_tenants(admin, MIGRATE_TENANTS, "m")
    elapsed, line = run_migrate([])
    print(f"   no-op: {elapsed:.2f} s  [{line}]")
    extra = pathlib.Path(tempfile.mkdtemp())
    for p in (ROOT / "tenant-migrations").glob("*.sql"):
        shutil.copy(p, extra)
    (extra / "29991231000000_bench_additive.sql").write_text(
        "alter table departments add column bench_note text;\ncreate index departments_bench_note_idx on departments (bench_note);\n"
    )
    elapsed, line = run_migrate(["--parallelism", "4", "--tenant-migrations", str(extra)])
    print(f"   additive (nullable column + index) across {tenant_count()} tenants: {elapsed:.2f} s  [{line}]")
    elapsed, line = run_migrate(["--tenant-migrations", str(extra)])
    print(f"   no-op after it: {elapsed:.2f} s", flush=True)


if __name__ == "__main__":
    main()
