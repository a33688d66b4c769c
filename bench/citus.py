"""The same server on one PostgreSQL and on a Citus cluster with schema-based sharding. Run through
bench/citus.sh, which starts a release server on each.

1. POST /enterprises on plain PostgreSQL beside the raw SQL floor (tenant creation must stay
   within 2x of it), and POST /enterprises on Citus (the schema is created on the coordinator and
   placed whole on a worker, its DDL sent one statement at a time).
2. A tenant read, GET /reports/{id} as the CEO, and a tenant list, GET /enterprises/{id}/reports,
   on both, requests interleaved (ABBA) so machine noise hits both alike; and where Citus placed
   the reader's schema.
"""

import os
import time

import psycopg

os.environ["DATABASE_URL"] = os.environ["PLAIN_DB_URL"]
from common import call, login, ms, pct  # noqa: E402
from tenancy import VERSION, alternate, create_enterprise, floor_transaction  # noqa: E402

CREATE_N = int(os.environ.get("CREATE_N", "100"))
READS = int(os.environ.get("READS", "1000"))


class Side:
    def __init__(self, base, db, label):
        self.base, self.db, self.label = base, db, label
        self.admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"], base=base)
        self.enterprise = create_enterprise(self.admin, f"reader-{label}", base=base)[1]
        self.ceo = login(f"ceo-reader-{label}@bench.example", "bench-password", base=base)
        _, departments = call("GET", f"/api/v1/enterprises/{self.enterprise}/departments", self.ceo, base=base)
        finance = next(d["id"] for d in departments if d["type"] == "finance")
        body = {"fullName": "Writer", "email": f"writer-{label}@bench.example", "password": "bench-password", "role": "DepartmentUser", "enterpriseId": self.enterprise, "departmentId": finance}
        assert call("POST", "/api/v1/users", self.ceo, body, base=base)[0] == 201
        writer = login(f"writer-{label}@bench.example", "bench-password", base=base)
        rows = [[f"Row {i}", i * 10, i * 7] for i in range(20)]
        for i in range(30):
            report = {"title": f"Report {i}", "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": "submitted", "data": {"columns": ["Item", "Revenue", "Costs"], "rows": rows}}
            status, created = call("POST", f"/api/v1/departments/{finance}/reports", writer, report, base=base)
            assert status == 201, (status, created)
        self.report = created["id"]

    def read(self):
        call("GET", f"/api/v1/reports/{self.report}", self.ceo, base=self.base)

    def list(self):
        call("GET", f"/api/v1/enterprises/{self.enterprise}/reports?pageSize=20", self.ceo, base=self.base)


def spare_ready(db):
    """Waits (untimed) until the server has a spare tenant schema at the newest version."""
    with psycopg.connect(db, autocommit=True) as conn:
        for _ in range(600):
            ready = conn.execute(
                "select count(*) from public.tenant_schemas where enterprise_id is null and schema_name <> 'platform' and version = %s", (VERSION,)
            ).fetchone()[0]
            if ready:
                return
            time.sleep(0.05)
    raise SystemExit("no spare tenant schema in 30 s")


def main():
    plain = Side(os.environ["PLAIN_BASE"], os.environ["PLAIN_DB_URL"], "plain")
    citus = Side(os.environ["CITUS_BASE"], os.environ["CITUS_DB_URL"], "citus")
    with psycopg.connect(citus.db) as conn:
        nodes = conn.execute(
            "select nodename || ':' || nodeport, count(*) from citus_shards where table_name::text like %s group by 1",
            (f"t_{citus.enterprise.replace('-', '')}.%",),
        ).fetchall()
        workers = conn.execute("select count(*) from pg_dist_node where noderole = 'primary' and groupid <> 0").fetchone()[0]
    print(f"Citus: {workers} workers; the reader's schema is placed whole on {', '.join(f'{n} ({c} tables)' for n, c in nodes)}")

    print(f"## 1. POST /enterprises, {CREATE_N} each")
    with psycopg.connect(plain.db, autocommit=True) as conn:
        api, floor = alternate(CREATE_N, lambda: create_enterprise(plain.admin, f"p{os.urandom(8).hex()}", base=plain.base)[0], lambda: floor_transaction(conn), warmup=5)
    print(f"   plain PostgreSQL: API p50 {ms(pct(api, 50))}, p95 {ms(pct(api, 95))}; floor p50 {ms(pct(floor, 50))}; ratio of p50s {pct(api, 50) / pct(floor, 50):.2f}x")
    inline_admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"], base=os.environ["CITUS_INLINE_BASE"])
    inline = [create_enterprise(inline_admin, f"i{os.urandom(8).hex()}", base=os.environ["CITUS_INLINE_BASE"])[0] for _ in range(CREATE_N)]
    print(f"   Citus, schema built in the request (TENANT_SPARE_SCHEMAS=0): API p50 {ms(pct(inline, 50))}, p95 {ms(pct(inline, 95))}; {pct(inline, 50) / pct(api, 50):.2f}x plain")
    on_citus = []
    for _ in range(CREATE_N):
        spare_ready(citus.db)
        on_citus.append(create_enterprise(citus.admin, f"c{os.urandom(8).hex()}", base=citus.base)[0])
    print(f"   Citus, a spare schema ready (the default): API p50 {ms(pct(on_citus, 50))}, p95 {ms(pct(on_citus, 95))}; {pct(on_citus, 50) / pct(api, 50):.2f}x plain")
    burst = [create_enterprise(citus.admin, f"b{os.urandom(8).hex()}", base=citus.base)[0] for _ in range(CREATE_N)]
    print(f"   Citus, {CREATE_N} back to back (spares run out, refilled every 2 s): API p50 {ms(pct(burst, 50))}, p95 {ms(pct(burst, 95))}")

    for label, a_fn, b_fn in (("GET /reports/{id} (CEO)", plain.read, citus.read), ("GET /enterprises/{id}/reports?pageSize=20 (CEO)", plain.list, citus.list)):
        a, b = alternate(READS, a_fn, b_fn)
        print(f"## {label}, {READS} each, interleaved")
        print(f"   plain PostgreSQL: p50 {ms(pct(a, 50))}, p99 {ms(pct(a, 99))}")
        print(f"   Citus (worker):   p50 {ms(pct(b, 50))}, p99 {ms(pct(b, 99))}  ({pct(b, 50) / pct(a, 50):.2f}x)")


if __name__ == "__main__":
    main()
