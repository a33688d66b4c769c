"""Helpers shared by the Python benchmarks: HTTP calls against BENCH_BASE and percentiles."""

import json
import os
import time
import urllib.request

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
