"""Why tenant tables name users without foreign keys (tenant-migrations/20261126000001_...).

Builds N tenant-shaped schemas in a scratch database, once with the four foreign keys to
public.users the first tenant migrations had and once without, and at every 1,000 tenants
measures: creating 1,000 tenants, the first UPDATE of a user in a new connection, an UPDATE,
and inserting then deleting a user. Pure SQL, no server. Bounded by N (default 2,000).
"""

import os
import statistics
import time
import uuid

import psycopg

BASE = os.environ.get("PG_BASE_URL", "postgresql://postgres@127.0.0.1:5432")
N = int(os.environ.get("FK_TENANTS", "2000"))
DB = "enterprise_platform_bench_fk"


def ddl(with_keys):
    ref = "references public.users (id)" if with_keys else ""
    return f"""
create table departments (id uuid primary key, head_id uuid {ref});
create table reports (id uuid primary key, department_id uuid references departments (id),
    created_by uuid not null {ref}, reviewed_by uuid {ref});
create index on reports (department_id);
create table report_events (id uuid primary key, report_id uuid references reports (id), actor_id uuid {ref});
"""


def p50_ms(f, n):
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def probe(label, tenants, user):
    with psycopg.connect(f"{BASE}/{DB}", autocommit=True) as c:
        t = time.perf_counter()
        c.execute("update users set last_login_at = now() where id = %s", (user,))
        first = (time.perf_counter() - t) * 1000
        update = p50_ms(lambda: c.execute("update users set last_login_at = now() where id = %s", (user,)), 30)

        def insert_delete():
            v = uuid.uuid4()
            c.execute("insert into users values (%s, now())", (v,))
            c.execute("delete from users where id = %s", (v,))

        try:
            delete = f"{p50_ms(insert_delete, 5):.1f} ms"
        except psycopg.Error as e:
            delete = f"FAILED: {str(e).splitlines()[0]}"
    print(f"   {label}, {tenants} tenants: first update {first:.1f} ms, update p50 {update:.2f} ms, insert+delete p50 {delete}", flush=True)


def run(with_keys):
    label = "with foreign keys" if with_keys else "without"
    with psycopg.connect(f"{BASE}/postgres", autocommit=True) as c:
        c.execute(f"drop database if exists {DB} with (force)")
        c.execute(f"create database {DB}")
    try:
        with psycopg.connect(f"{BASE}/{DB}", autocommit=True) as db:
            db.execute("create table users (id uuid primary key, last_login_at timestamptz)")
            user = uuid.uuid4()
            db.execute("insert into users values (%s, now())", (user,))
            t = time.perf_counter()
            for i in range(1, N + 1):
                schema = f"t_{uuid.uuid4().hex}"
                with db.transaction():
                    db.execute(f'create schema "{schema}"')
                    db.execute("select set_config('search_path', %s, true)", (schema,))
                    db.execute(ddl(with_keys))
                if i % 1000 == 0:
                    print(f"   {label}: tenants {i - 999}-{i} created in {time.perf_counter() - t:.1f} s", flush=True)
                    probe(label, i, user)
                    t = time.perf_counter()
    finally:
        with psycopg.connect(f"{BASE}/postgres", autocommit=True) as c:
            c.execute(f"drop database if exists {DB} with (force)")


if __name__ == "__main__":
    run(True)
    run(False)
