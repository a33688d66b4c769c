"""Helpers shared by the Python benchmarks: HTTP calls against BENCH_BASE and percentiles."""

import json
import os
import time
import urllib.request
from types import SimpleNamespace

BASE = os.environ.get("BENCH_BASE", "http://127.0.0.1:8080")


def call(method, path, token=None, body=None, raw=False, base=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request((base or BASE) + path, data=data, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    with urllib.request.urlopen(req) as resp:
        payload = resp.read()
        if raw:
            return resp.status, payload
        return resp.status, (json.loads(payload) if payload else None)


def login(email, password, base=None):
    return call("POST", "/api/v1/auth/login", body={"email": email, "password": password}, base=base)[1]["token"]


def tenant_with_writer(slug, role="DepartmentHead"):
    """A new enterprise "Bench <slug>", made through the API by the platform admin (BENCH_EMAIL),
    with a writer of `role` in its finance department: the tokens and ids the benchmarks start from."""
    admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])
    _, ent = call("POST", "/api/v1/enterprises", admin, {
        "name": f"Bench {slug.title()}", "ceoFullName": "CEO", "ceoEmail": f"ceo@{slug}.bench", "ceoPassword": "bench-password"})
    ceo = login(f"ceo@{slug}.bench", "bench-password")
    departments = call("GET", f"/api/v1/enterprises/{ent['id']}/departments", ceo)[1]
    finance = next(d["id"] for d in departments if d["type"] == "finance")
    call("POST", "/api/v1/users", ceo, {"fullName": "Writer", "email": f"writer@{slug}.bench", "password": "bench-password",
                                        "role": role, "departmentId": finance})
    writer = login(f"writer@{slug}.bench", "bench-password")
    return SimpleNamespace(admin=admin, enterprise=ent["id"], schema="t_" + ent["id"].replace("-", ""), ceo=ceo,
                           departments=departments, finance=finance, writer=writer,
                           writer_id=call("GET", "/api/v1/auth/me", writer)[1]["id"])


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ms(v):
    return f"{v * 1000:.1f} ms"


def timed(n, fn, warmup=10):
    """Latencies of `n` sequential calls of `fn`, after `warmup` untimed ones."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def summary(label, times):
    return f"   {label}: p50 {ms(pct(times, 50))}, p99 {ms(pct(times, 99))} (n={len(times)})"
