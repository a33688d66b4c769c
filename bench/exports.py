"""Export memory under load (issue 15, finding 2). Run through bench/exports.sh, which starts a
release server with MAX_BODY_BYTES large enough for the report.

A department user creates the largest report the API allows (10,000 rows x 50 columns, ~1 MB of
JSON); then CONCURRENCY clients download it at once, ROUNDS times, as PDF, then XLSX, then CSV.
The server's resident memory is sampled every 20 ms from /proc (VmRSS, and VmHWM: its peak), and
/healthz is timed throughout.
"""

import os
import threading
import time
import urllib.error
import urllib.request

from common import BASE, call, ms, pct, tenant_with_writer

PID = int(os.environ["BENCH_PID"])
CONCURRENCY = int(os.environ.get("CONCURRENCY", "16"))
ROUNDS = int(os.environ.get("ROUNDS", "2"))


def rss_kib(field):
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main():
    t = tenant_with_writer("exports", role="DepartmentUser")
    finance, writer = t.finance, t.writer
    table = {"columns": [f"C{c}" for c in range(50)], "rows": [[(r * 50 + c) % 10 for c in range(50)] for r in range(10_000)]}
    _, report = call("POST", f"/api/v1/departments/{finance}/reports", writer, {
        "title": "Largest report", "content": "x", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "data": table})
    print(f"server RSS after setup: {rss_kib('VmRSS') // 1024} MiB")

    samples, health = [], []
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            samples.append(rss_kib("VmRSS"))
            t = time.perf_counter()
            try:
                urllib.request.urlopen(BASE + "/healthz", timeout=5).read()
                health.append(time.perf_counter() - t)
            except Exception:
                health.append(float("inf"))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    for fmt in ["pdf", "xlsx", "csv"]:
        statuses, times = [], []
        lock = threading.Lock()

        def download():
            t = time.perf_counter()
            req = urllib.request.Request(f"{BASE}/api/v1/reports/{report['id']}/export?format={fmt}")
            req.add_header("authorization", f"Bearer {writer}")
            try:
                with urllib.request.urlopen(req, timeout=120) as resp:
                    resp.read()
                    status = resp.status
            except urllib.error.HTTPError as e:
                status = e.code
            with lock:
                statuses.append(status)
                times.append(time.perf_counter() - t)

        start = len(samples)
        began = time.perf_counter()
        for _ in range(ROUNDS):
            threads = [threading.Thread(target=download) for _ in range(CONCURRENCY)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        wall = time.perf_counter() - began
        peak = max(samples[start:] or [0]) // 1024
        counts = {s: statuses.count(s) for s in sorted(set(statuses))}
        print(f"{fmt}: {ROUNDS} x {CONCURRENCY} at once in {wall:.1f} s; statuses {counts}; "
              f"latency p50 {ms(pct(times, 50))}, max {ms(max(times))}; peak RSS in this phase {peak} MiB")
    stop.set()
    sampler.join()
    print(f"server peak RSS over the whole run (VmHWM): {rss_kib('VmHWM') // 1024} MiB")
    print(f"/healthz during the run: p50 {ms(pct(health, 50))}, p99 {ms(pct(health, 99))}, max {ms(max(health))} (n={len(health)})")


if __name__ == "__main__":
    main()
