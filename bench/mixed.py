"""The mixed load (issue 13). Run through bench/mixed.sh, which starts a release server.

prepare DIR: an enterprise, a department head who writes REPORTS reports (inserted with SQL) in
             finance, a sender with CONVERSATIONS group chats (each with its first epoch) for the
             message sends; tokens and ids go to files in DIR for the wrk scripts.
cpu FILE:    snapshot of the CPU time of the server, PostgreSQL (the 5432 cluster) and Redis,
             written to FILE; `cpu FILE REQUESTS` afterwards prints each one's CPU per request.
summary F..: one table row per wrk output file (name=file): req/s, p50, p99, errors.
"""

import json
import os
import random
import re
import subprocess
import sys
import uuid

from common import tenant_with_writer

REPORTS = int(os.environ.get("REPORTS", "1000"))
CONVERSATIONS = int(os.environ.get("CONVERSATIONS", "1000"))
STATUSES = ["draft", "submitted", "reviewed", "approved", "rejected"]


def prepare(out):
    import psycopg

    from messaging import group_with_epoch, person

    t = tenant_with_writer("mixed")
    admin, ceo, finance, writer, writer_id, schema = t.admin, t.ceo, t.finance, t.writer, t.writer_id, t.schema
    rng = random.Random(13)
    ids = [uuid.uuid4() for _ in range(REPORTS)]
    with psycopg.connect(os.environ["DATABASE_URL"]) as conn, conn.cursor() as cur:
        cur.execute("select set_config('search_path', %s, false)", (schema,))
        rows = []
        for i, rid in enumerate(ids):
            month = 1 + i % 12
            data = json.dumps({"columns": ["Item", "Amount"], "rows": [[f"Line {j}", rng.randint(1, 1000)] for j in range(5)]})
            rows.append((rid, finance, f"Report {i} {rng.choice(['budget', 'audit', 'sales'])}", "Body " * 40,
                         f"2026-{month:02d}-01", f"2026-{month:02d}-28", rng.choice(STATUSES), data, writer_id))
        cur.executemany("insert into reports (id, department_id, title, content, period_start, period_end, status, data, created_by) "
                        "values (%s, %s, %s, %s, %s, %s, %s, %s, %s)", rows)
        # Each report's audit trail: its creation, as the API records it.
        cur.execute("insert into report_events (id, report_id, actor_id, from_status, to_status) "
                    "select gen_random_uuid(), id, created_by, null, status from reports")
        cur.execute("analyze")
    sender_id, sender = person(ceo, "sender@mixed.bench")
    other_id, _ = person(ceo, "other@mixed.bench")
    files = {
        "writer.token": writer,
        "sender.token": sender,
        "admin.token": admin,
        "reports": "\n".join(str(i) for i in ids),
        "list.path": f"/api/v1/departments/{finance}/reports",
        "schema": schema,
        "writer.id": writer_id,
        "conversations": "\n".join(group_with_epoch(sender, sender_id, other_id) for _ in range(CONVERSATIONS)),
    }
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text + "\n" if name in ("reports", "conversations") else text)
    print(f"## prepared: an enterprise, {REPORTS} reports in finance (read by its head), {CONVERSATIONS} conversations")


def listening_pid(port):
    out = subprocess.run(["ss", "-Hltnp", f"sport = :{port}"], capture_output=True, text=True).stdout
    m = re.search(r"pid=(\d+)", out)
    return int(m.group(1)) if m else None


def processes():
    """pid -> (ppid, command name, utime + stime in ticks) of every process."""
    table = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        table[int(d)] = (int(fields[1]), name, int(fields[11]) + int(fields[12]))
    return table


def cpu_groups():
    table = processes()
    postmaster = listening_pid(5432)
    groups = {"server": 0, "postgres": 0, "redis": 0}
    server = int(os.environ["BENCH_PID"])
    for pid, (ppid, name, ticks) in table.items():
        if pid == server:
            groups["server"] += ticks
        elif pid == postmaster or ppid == postmaster:
            groups["postgres"] += ticks
        elif name.startswith("redis-server"):
            groups["redis"] += ticks
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    groups["machine busy"] = sum(fields) - fields[3] - fields[4]
    groups["machine total"] = sum(fields)
    return groups


def cpu(path, requests=None):
    now = cpu_groups()
    if requests is None:
        with open(path, "w") as f:
            json.dump(now, f)
        return
    with open(path) as f:
        before = json.load(f)
    hz = os.sysconf("SC_CLK_TCK")
    n = int(requests)
    total = now["machine total"] - before["machine total"]
    parts = [f"{k} {(now[k] - before[k]) / hz / n * 1e6:.0f} us" for k in ["server", "postgres", "redis"]]
    busy = (now["machine busy"] - before["machine busy"]) / max(total, 1) * 100
    print(f"   CPU per request ({n} requests): " + ", ".join(parts) + f"; machine {busy:.0f}% busy")


def parse_wrk(path):
    text = open(path).read()
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))

    def pct(p):
        m = re.search(rf"^\s+{p}%\s+([\d.]+)(us|ms|s)\s*$", text, re.M)
        value, unit = float(m.group(1)), m.group(2)
        return value / 1000 if unit == "us" else value * 1000 if unit == "s" else value

    errors = re.search(r"non-2xx or failed: (\d+) of (\d+)", text)
    return rps, pct(50), pct(99), errors.group(1) if errors else "?", errors.group(2) if errors else "?"


def ratio(read, *floors):
    """GET /reports/{id} against the mean of the floor's runs around it."""
    rps, p50, p99, errors, n = parse_wrk(read)
    runs = [parse_wrk(f) for f in floors]
    floor_rps = sum(r[0] for r in runs) / len(runs)
    floor_p99 = max(r[2] for r in runs)
    print(f"   GET /reports/{{id}}: {rps:,.0f} req/s = {rps / floor_rps:.2f}x the floor's {floor_rps:,.0f} (runs: "
          + ", ".join(f"{r[0]:,.0f}" for r in runs) + f"); p99 {p99:.1f} ms against the floor's {floor_p99:.1f} ms")


def summary(pairs):
    print("| what | connections | req/s | p50 | p99 | non-2xx or failed |")
    print("|---|---|---|---|---|---|")
    total = 0.0
    for pair in pairs:
        label, conns, path = pair.split("=", 2)
        rps, p50, p99, errors, n = parse_wrk(path)
        total += rps
        print(f"| {label} | {conns} | {rps:,.0f} | {p50:.1f} ms | {p99:.1f} ms | {errors} of {n} |")
    print(f"| all | | {total:,.0f} | | | |")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "prepare":
        prepare(sys.argv[2])
    elif cmd == "cpu":
        cpu(*sys.argv[2:])
    elif cmd == "summary":
        summary(sys.argv[2:])
    elif cmd == "ratio":
        ratio(*sys.argv[2:])
