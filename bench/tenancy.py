"""Tenancy benchmarks (issue 3). Run through bench/tenancy.sh, which starts a release server.

1. POST /enterprises latency over N enterprises, beside the floor: the same statements run as
   one raw SQL transaction per enterprise (no HTTP, no argon2, no JSON).
2. `backend migrate`: a no-op with T tenants, then an additive tenant migration (a nullable
   column and an index) across them.
3. A tenant-scoped read (GET /enterprises/{id}/departments) at 10 tenants and at many.

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

from common import call, login, ms, pct, timed

DB = os.environ["DATABASE_URL"]
BIN = os.environ["BENCH_BIN"]
ROOT = pathlib.Path(__file__).resolve().parent.parent
CREATE_N = int(os.environ.get("CREATE_N", "100"))
MIGRATE_TENANTS = int(os.environ.get("MIGRATE_TENANTS", "1000"))
MANY_TENANTS = int(os.environ.get("MANY_TENANTS", "10000"))
READS = int(os.environ.get("READS", "500"))


def create_enterprise(token, tag):
    body = {"name": f"Bench {tag}", "ceoFullName": "Bench CEO", "ceoEmail": f"ceo-{tag}@bench.example", "ceoPassword": "bench-password"}
    t = time.perf_counter()
    status, created = call("POST", "/api/v1/enterprises", token, body)
    assert status == 201, status
    return time.perf_counter() - t, created["id"]


def floor_transactions(n, workers=1):
    """The same rows and DDL as POST /enterprises, as one raw SQL transaction each."""
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(floor_transactions, [n // workers + (1 if i < n % workers else 0) for i in range(workers)]))
        return [t for part in parts for t in part]
    baseline = "\n;\n".join(p.read_text() for p in sorted((ROOT / "tenant-migrations").glob("*.sql")))
    version = max(int(p.name.split("_")[0]) for p in (ROOT / "tenant-migrations").glob("*.sql"))
    pw_hash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$9m0yQm2gC3s6sQ7Q0e1pXQbYk2V3zq0Xr3m3nXyP9mE"
    times = []
    with psycopg.connect(DB, autocommit=True) as conn:
        for _ in range(n):
            eid = uuid.uuid4()
            schema = f"t_{eid.hex}"
            t = time.perf_counter()
            with conn.transaction():
                conn.execute("insert into public.enterprises (id, name, description, schema_name) values (%s, %s, '', %s)", (eid, "Floor", schema))
                conn.execute(f'create schema "{schema}"')
                conn.execute("select set_config('search_path', %s, true)", (schema,))
                conn.execute(baseline)
                conn.execute("select set_config('search_path', 'public', true)")
                conn.execute("insert into public.tenant_schemas (schema_name, enterprise_id, version) values (%s, %s, %s)", (schema, eid, version))
                conn.execute("select set_config('search_path', %s, true)", (schema,))
                conn.execute(
                    "insert into departments (id, type) select * from unnest(%s::uuid[], %s::text[])",
                    ([uuid.uuid4() for _ in range(5)], ["finance", "operations", "sales_marketing", "human_resources", "information_technology"]),
                )
                # Last, as the server does: inserting a user before the DDL that references
                # public.users deadlocks two concurrent creations.
                conn.execute(
                    "insert into public.users (id, enterprise_id, role, full_name, email, password_hash) values (%s, %s, 'EnterpriseCeo', 'CEO', %s, %s)",
                    (uuid.uuid4(), eid, f"floor-{eid.hex}@bench.example", pw_hash),
                )
            times.append(time.perf_counter() - t)
    return times


def run_migrate(args):
    t = time.perf_counter()
    out = subprocess.run([BIN, "migrate", *args], capture_output=True, text=True, env=os.environ)
    elapsed = time.perf_counter() - t
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    return elapsed, out.stdout.strip().splitlines()[-1]


def tenant_count():
    with psycopg.connect(DB) as conn:
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


def read_latency(ceo_token, enterprise_id, n):
    path = f"/api/v1/enterprises/{enterprise_id}/departments"
    return timed(n, lambda: call("GET", path, ceo_token), warmup=20)


def main():
    admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])

    # The read baseline is taken first, with 10 tenants on the platform.
    reader_id = create_enterprise(admin, "reader")[1]
    grow_tenants(admin, 10, "s")
    ceo = login("ceo-reader@bench.example", "bench-password")
    small = read_latency(ceo, reader_id, READS)
    n_small = tenant_count()

    if os.environ.get("ONLY_READS") == "1":
        grow_tenants(admin, MANY_TENANTS, "g")
        with psycopg.connect(DB, autocommit=True) as conn:
            conn.execute("vacuum analyze")
        large = read_latency(ceo, reader_id, READS)
        print(f"## 3. GET /enterprises/{{id}}/departments as the CEO, {READS} sequential reads")
        print(f"   {n_small} tenants: p50 {ms(pct(small, 50))}, p99 {ms(pct(small, 99))}")
        print(f"   {tenant_count()} tenants (after vacuum analyze): p50 {ms(pct(large, 50))}, p99 {ms(pct(large, 99))}")
        print(f"   ratio of p50s: {pct(large, 50) / pct(small, 50):.2f}x")
        return

    print(f"## 1. POST /enterprises, {CREATE_N} one after another, beside the raw SQL floor")
    api = [create_enterprise(admin, f"c{i}")[0] for i in range(CREATE_N)]
    floor = floor_transactions(CREATE_N)
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

    print(f"## 3. GET /enterprises/{{id}}/departments as the CEO, {READS} sequential reads")
    grow_tenants(admin, MANY_TENANTS, "g")
    large = read_latency(ceo, reader_id, READS)
    n_large = tenant_count()
    print(f"   {n_small} tenants: p50 {ms(pct(small, 50))}, p99 {ms(pct(small, 99))}")
    print(f"   {n_large} tenants: p50 {ms(pct(large, 50))}, p99 {ms(pct(large, 99))}")
    print(f"   ratio of p50s: {pct(large, 50) / pct(small, 50):.2f}x")


if __name__ == "__main__":
    main()
