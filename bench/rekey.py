"""Makes TENANTS enterprises through the API, each with a webhook (made by the platform admin for
it) whose secret is rotated once: two sealed secrets per tenant. Run through bench/rekey.sh."""

import os
import time
from concurrent.futures import ThreadPoolExecutor

from common import call, login

TENANTS = int(os.environ.get("TENANTS", "1000"))
admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])


def tenant(n):
    status, ent = call("POST", "/api/v1/enterprises", admin, {
        "name": f"Rekey {n}", "ceoFullName": "CEO", "ceoEmail": f"ceo@rekey-{n}.bench", "ceoPassword": "bench-password"})
    assert status == 201, status
    status, hook = call("POST", f"/api/v1/webhooks?enterpriseId={ent['id']}", admin, {"url": f"https://127.0.0.1/hook/{n}", "events": ["user.created"]})
    assert status == 201, status
    status, _ = call("POST", f"/api/v1/webhooks/{hook['id']}/rotate-secret", admin)
    assert status == 200, status


t = time.perf_counter()
with ThreadPoolExecutor(4) as pool:
    list(pool.map(tenant, range(TENANTS)))
print(f"{TENANTS} enterprises, each with a webhook rotated once, made in {time.perf_counter() - t:.0f} s")
