"""Report benchmarks (issue 4). Run through bench/reports.sh, which starts a release server.

1. The department report list and the CEO's report list with REPORTS reports in one tenant.
2. XLSX and PDF export of a report whose table has ROWS rows.
"""

import json
import os
import random
import uuid

import psycopg

from common import call, summary, tenant_with_writer, timed

DB = os.environ["DATABASE_URL"]
REPORTS = int(os.environ.get("REPORTS", "10000"))
ROWS = int(os.environ.get("ROWS", "1000"))
READS = int(os.environ.get("READS", "300"))
STATUSES = ["draft", "submitted", "reviewed", "approved", "rejected"]


def main():
    t = tenant_with_writer("reports")
    ceo, departments, finance, writer, writer_id, schema = t.ceo, t.departments, t.finance, t.writer, t.writer_id, t.schema

    # The reports themselves go in with SQL: the benchmark is about reading them.
    rng = random.Random(7)
    with psycopg.connect(DB) as conn:
        with conn.cursor() as cur:
            cur.execute("select set_config('search_path', %s, false)", (schema,))
            rows = []
            for i in range(REPORTS):
                dept = finance if i % 2 == 0 else rng.choice(departments)["id"]
                month = 1 + i % 12
                data = json.dumps({"columns": ["Item", "Amount"], "rows": [[f"Line {j}", rng.randint(1, 1000)] for j in range(5)]})
                rows.append((uuid.uuid4(), dept, f"Report {i} {rng.choice(['budget', 'audit', 'sales', 'hiring'])}",
                             "Body " * 40, f"2026-{month:02d}-01", f"2026-{month:02d}-28", rng.choice(STATUSES), data, writer_id))
            cur.executemany(
                "insert into reports (id, department_id, title, content, period_start, period_end, status, data, created_by) "
                "values (%s, %s, %s, %s, %s, %s, %s, %s, %s)", rows)
            cur.execute("analyze reports")
    print(f"## 1. Report lists with {REPORTS} reports in one tenant ({READS} sequential requests each)")
    dept_path = f"/api/v1/departments/{finance}/reports"
    print(summary("department list, first page", timed(READS, lambda: call("GET", dept_path, writer))))
    print(summary("department list, q=audit, sorted by title", timed(READS, lambda: call("GET", dept_path + "?q=audit&sort=title", writer))))
    print(summary("CEO list, first page", timed(READS, lambda: call("GET", "/api/v1/dashboard/reports", ceo))))
    print(summary("CEO list, status=submitted, page 20", timed(READS, lambda: call("GET", "/api/v1/dashboard/reports?status=submitted&page=20", ceo))))
    print(summary("CEO dashboard", timed(READS, lambda: call("GET", "/api/v1/dashboard/ceo", ceo))))

    print(f"## 2. Exports of a report with a {ROWS}-row table")
    table = {"columns": ["Month", "Revenue", "Costs", "Note"],
             "rows": [[f"Row {i}", rng.randint(0, 10000), rng.random() * 1000, "ok" if i % 3 else None] for i in range(ROWS)]}
    _, big = call("POST", dept_path, writer, {"title": "Big table", "content": "Long content. " * 200,
                                              "periodStart": "2026-01-01", "periodEnd": "2026-12-31", "status": "submitted", "data": table})
    for fmt in ["xlsx", "pdf", "csv"]:
        path = f"/api/v1/reports/{big['id']}/export?format={fmt}"
        size = len(call("GET", path, ceo, raw=True)[1])
        print(summary(f"{fmt} ({size // 1024} KiB)", timed(30, lambda: call("GET", path, ceo, raw=True), warmup=3)))


if __name__ == "__main__":
    main()
