"""E-mail through the outbox, measured at a real SMTP server (bench/mail.sh says what)."""

import os
import threading
import time
import uuid

from common import call, login, pct, tenant_with_writer

BOX = os.environ["BENCH_MAIL_DIR"]
SEQ = int(os.environ.get("SEQ", "100"))
BURST = int(os.environ.get("BURST", "500"))
SUBMISSIONS = int(os.environ.get("SUBMISSIONS", "50"))


def in_box():
    return sum(1 for n in os.listdir(BOX) if n.endswith(".eml"))


def wait_box(count, deadline=120.0):
    until = time.monotonic() + deadline
    while in_box() < count:
        if time.monotonic() > until:
            raise SystemExit(f"only {in_box()} of {count} messages arrived")
        time.sleep(0.002)
    return time.monotonic()


t = tenant_with_writer(f"mail{uuid.uuid4().hex[:6]}")


def invite(n):
    status, user = call("POST", "/api/v1/users", t.ceo, {"fullName": f"Invitee {n}", "email": f"invitee-{uuid.uuid4().hex}@bench.test",
                                                       "role": "DepartmentUser", "departmentId": t.finance})
    assert status == 201 and user["invitation"]["status"] == "pending", user


print("## E-mail through the outbox, to the mail catcher on loopback\n")
start = in_box()
latencies = []
for n in range(SEQ):
    invite(n)
    acknowledged = time.monotonic()
    latencies.append(wait_box(start + n + 1) - acknowledged)
print(f"1. invitation, 201 to message in the box, {SEQ} in sequence: p50 {pct(latencies, 50) * 1000:.0f} ms, "
      f"p95 {pct(latencies, 95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms")

start = in_box()
began = time.monotonic()
per_thread = BURST // 8
threads = [threading.Thread(target=lambda: [invite(i) for i in range(per_thread)]) for _ in range(8)]
for th in threads:
    th.start()
for th in threads:
    th.join()
made = time.monotonic()
done = wait_box(start + per_thread * 8)
print(f"2. {per_thread * 8} invitations from 8 threads: made in {made - began:.1f} s, all in the box after "
      f"{done - began:.1f} s: {per_thread * 8 / (done - began):.0f} e-mails/s")

start = in_box()
began = time.monotonic()
for n in range(SUBMISSIONS):
    status, _ = call("POST", f"/api/v1/departments/{t.finance}/reports", t.writer, {
        "title": f"Report {n}", "content": "x", "periodStart": "2026-01-01", "periodEnd": "2026-01-31", "status": "submitted",
        "data": {"columns": ["Month", "Revenue"], "rows": [["Jan", n]]}})
    assert status == 201
submitted = time.monotonic()
arrived = wait_box(start + 1)
time.sleep(float(os.environ.get("MAIL_DIGEST_SECS", "2")) + 2.0)
print(f"3. {SUBMISSIONS} reports submitted in {submitted - began:.1f} s: the CEO received {in_box() - start} e-mail(s), "
      f"the first {arrived - submitted:.1f} s after the last submission (MAIL_DIGEST_SECS={os.environ.get('MAIL_DIGEST_SECS')})")
