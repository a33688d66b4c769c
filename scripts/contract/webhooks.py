"""Webhooks end to end, through the generated client and a real receiver: the events a CEO's
webhook hears arrive, signed as the Standard Webhooks specification says (every delivery is
verified with its reference library, `standardwebhooks`, as a receiver would), with the data
they promise; a receiver that fails twice gets the event again until it acknowledges it; a
rotated secret signs beside its successor, or stops at once when the rotation says so; the test
event and a redelivery arrive; and a server that guards against server-side request forgery
refuses private and plain-http URLs.

The receiver is an http.server on 127.0.0.1 (a free port) with one path per webhook:
`/hooks/<name>` answers 204, `/hooks/<name>/flaky` answers 500 the first two times a given
`webhook-id` arrives and 204 after that. It verifies every delivery with each secret it knows
for the path and records which verified; an unverified delivery is answered 401 and fails the run.

The server under test (run.sh) delivers to 127.0.0.1 over http (WEBHOOK_ALLOW_PRIVATE_NETWORKS),
retries at a thousandth of the real schedule (WEBHOOK_RETRY_SCALE=0.001: 5 ms, 300 ms, ...) and
polls its outbox every 50 ms. The refusals are checked on a second instance this script starts
on the same database without those settings, as in production, and stops before any webhook
exists (its dispatcher would otherwise take deliveries it may not send).

Usage (run.sh sets it up): webhooks.py BASE_URL, with `platform_client` importable and
CONTRACT_ADMIN_EMAIL / CONTRACT_ADMIN_PASSWORD, CONTRACT_SERVER_BIN (the binary, to start the
strict instance) and CONTRACT_WORK (where its log goes) set.
"""

import datetime
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

# The helpers of integration.py: every answer checked against its model, the rate-limit headers.
import integration
from integration import TIMEOUT, ContractError, call, fail, sign_in, step
from platform_client import AuthenticatedClient
from platform_client.api.auth import get_me
from platform_client.api.enterprises import create_enterprise, list_enterprise_departments
from platform_client.api.reports import create_department_report, delete_report, get_report, review_report, update_report
from platform_client.api.users import create_user
from platform_client.api.webhooks import (
    create_webhook,
    list_webhook_deliveries,
    redeliver_webhook_delivery,
    rotate_webhook_secret,
    send_webhook_test_event,
)
from platform_client.models import (
    ApiError,
    CreateEnterprise,
    CreateReport,
    CreateUser,
    CreateWebhook,
    DepartmentType,
    Enterprise,
    PageWebhookDelivery,
    ReportData,
    ReportDetail,
    ReportStatus,
    ReviewReport,
    Role,
    UpdateReport,
    User,
    WebhookDelivery,
    WebhookWithSecret,
)

ADMIN_EMAIL, ADMIN_PASSWORD = os.environ["CONTRACT_ADMIN_EMAIL"], os.environ["CONTRACT_ADMIN_PASSWORD"]
SERVER_BIN = os.environ["CONTRACT_SERVER_BIN"]
WORK = os.environ["CONTRACT_WORK"]
RUN = uuid.uuid4().hex[:8]
# Deliveries go out within a poll (50 ms) and retries within 5 ms and 300 ms: seconds are ample.
DEADLINE = 20.0
# How long nothing more may arrive before "no other delivery came" is believed.
QUIET = 1.5


# --- the receiver -----------------------------------------------------------------------------


class Arrival:
    """One POST the receiver got."""

    def __init__(self, path, headers, body, verified_with, answered):
        self.path, self.headers, self.body = path, headers, body
        self.verified_with = verified_with  # the secrets (of those known for the path) that verified it
        self.answered = answered
        self.msg_id = headers.get("webhook-id", "")
        try:
            self.payload = json.loads(body)
        except ValueError:
            self.payload = None

    @property
    def type(self):
        return (self.payload or {}).get("type")

    @property
    def data(self):
        return (self.payload or {}).get("data") or {}

    def __repr__(self):
        return f"{self.path} {self.msg_id} {self.type} -> {self.answered} ({len(self.verified_with)} secret(s) verified)"


class Receiver:
    def __init__(self):
        self.lock = threading.Lock()
        self.secrets = {}  # path -> secrets to verify with
        self.arrivals = []
        self.failures_seen = {}  # msg_id -> times answered 500 (flaky paths)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                path = self.path
                with receiver.lock:
                    secrets = list(receiver.secrets.get(path, []))
                verified = []
                for secret in secrets:
                    try:
                        Webhook(secret).verify(body, headers)
                        verified.append(secret)
                    except WebhookVerificationError:
                        pass
                with receiver.lock:
                    if not verified:
                        status = 401
                    elif path.endswith("/flaky") and receiver.failures_seen.get(headers.get("webhook-id"), 0) < 2:
                        receiver.failures_seen[headers.get("webhook-id")] = receiver.failures_seen.get(headers.get("webhook-id"), 0) + 1
                        status = 500
                    else:
                        status = 204
                    receiver.arrivals.append(Arrival(path, headers, body, verified, status))
                self.send_response(status)
                if status == 204:
                    self.end_headers()
                else:
                    answer = b"not verified" if status == 401 else b"failing on purpose"
                    self.send_header("content-length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)

            def log_message(self, *args):
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 64  # the dispatcher sends up to 16 at once

        self.server = Server(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def trust(self, path, *secrets):
        with self.lock:
            self.secrets[path] = list(secrets)

    def at(self, path):
        with self.lock:
            return [a for a in self.arrivals if a.path == path]

    def wait(self, what, condition, timeout=DEADLINE):
        """Waits until condition(receiver) holds, failing the run (with what arrived) if it does not."""
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if condition(self):
                return
            time.sleep(0.02)
        with self.lock:
            got = "\n    ".join(map(repr, self.arrivals)) or "nothing"
        raise ContractError(f"the receiver: {what} did not happen within {timeout:.0f} s; it got:\n    {got}")

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def msg_id(delivery_id: uuid.UUID) -> str:
    return f"msg_{delivery_id.hex}"


# --- the strict instance ----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_strict_server():
    """Another instance on the same database and Redis, as in production: no
    WEBHOOK_ALLOW_PRIVATE_NETWORKS, no retry scale, the default poll."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBHOOK_", "OUTBOX_"))}
    env["BIND_ADDR"] = f"127.0.0.1:{port}"
    log = open(os.path.join(WORK, "strict-server.log"), "wb")
    process = subprocess.Popen([SERVER_BIN, "serve"], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    for _ in range(100):
        if process.poll() is not None:
            break
        try:
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return process, base
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    process.kill()
    process.wait()
    raise ContractError(f"the strict instance did not start (see {WORK}/strict-server.log):\n"
                        + open(os.path.join(WORK, "strict-server.log"), errors="replace").read()[-2000:])


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- checks -----------------------------------------------------------------------------------


def expect_refused(operation, client, url):
    """createWebhook with `url` must be a 400 validation_failed naming `url`; returns the message."""
    error, _ = call(operation, create_webhook, ApiError, client=client,
                    body=CreateWebhook(url=url, events=["report.created"]), status=400)
    fields = error.fields.to_dict() if error.fields else {}
    if error.code != "validation_failed" or "url" not in fields:
        fail(operation, f"{url}: expected validation_failed naming `url`, got {error.to_dict()}")
    return error.message


def deliveries_of(operation, client, webhook_id):
    page, _ = call(operation, list_webhook_deliveries, PageWebhookDelivery, webhook_id, client=client, page_size=100)
    return page


def check_event(arrival, expected_type, **fields):
    """The body of one delivery: `{type, timestamp, data}` with the data fields given."""
    where = f"delivery {arrival.msg_id} ({expected_type})"
    payload = arrival.payload
    if not isinstance(payload, dict) or set(payload) != {"type", "timestamp", "data"}:
        raise ContractError(f"{where}: the body is not {{type, timestamp, data}}: {arrival.body[:300]!r}")
    if payload["type"] != expected_type:
        raise ContractError(f"{where}: type {payload['type']!r}")
    stamp = datetime.datetime.fromisoformat(payload["timestamp"].replace("Z", "+00:00"))
    if abs((datetime.datetime.now(datetime.timezone.utc) - stamp).total_seconds()) > 300:
        raise ContractError(f"{where}: timestamp {payload['timestamp']} is not now")
    data = payload["data"]
    for key, value in fields.items():
        if data.get(key) != value:
            raise ContractError(f"{where}: data.{key} is {data.get(key)!r}, expected {value!r} (data: {data})")
    if any("password" in key.lower() or "secret" in key.lower() for key in data):
        raise ContractError(f"{where}: the data carries a secret: {sorted(data)}")
    if arrival.headers.get("content-type", "").split(";")[0] != "application/json":
        raise ContractError(f"{where}: content-type {arrival.headers.get('content-type')!r}")


def main() -> None:
    receiver = Receiver()
    step(f"webhooks: a receiver on 127.0.0.1:{receiver.port} verifies every delivery (standardwebhooks)")

    step("webhooks: the admin makes an enterprise; its CEO signs in")
    admin = sign_in(ADMIN_EMAIL, ADMIN_PASSWORD)
    ceo_email, ceo_password = f"hooks-ceo-{RUN}@contract.test", f"contract-ceo-{uuid.uuid4().hex}"
    enterprise, _ = call("createEnterprise", create_enterprise, Enterprise, client=admin, status=201, body=CreateEnterprise(
        name=f"Webhooks {RUN}", description="Made by the webhooks contract test",
        ceo_full_name="Webhooks CEO", ceo_email=ceo_email, ceo_password=ceo_password))
    departments, _ = call("listEnterpriseDepartments", list_enterprise_departments, list, enterprise.id, client=admin)
    finance = next(d for d in departments if d.type_ == DepartmentType.FINANCE)
    ceo = sign_in(ceo_email, ceo_password)
    ceo_id = call("getMe", get_me, User, client=ceo)[0].id

    # Before any webhook exists: the strict instance's dispatcher must find nothing to take. (This
    # also leaves the outbox time to drain the CEO's user.created: an event still waiting there
    # when a webhook is made reaches it too, as the fan-out matches the webhooks of its own time.)
    step("webhooks: an instance without WEBHOOK_ALLOW_PRIVATE_NETWORKS refuses private and plain-http URLs")
    strict, strict_base = start_strict_server()
    try:
        strict_ceo = AuthenticatedClient(base_url=strict_base + "/api/v1", token=ceo.token, timeout=TIMEOUT,
                                         raise_on_unexpected_status=True)
        for url, reason in [
            ("http://example.com/x", "https"),
            ("https://127.0.0.1/x", "private network"),
            ("https://169.254.169.254/latest", "private network"),
            ("https://localhost/x", "private network"),
            ("https://[::1]/x", "private network"),
            (receiver.url("/hooks/strict"), "https"),
        ]:
            message = expect_refused(f"createWebhook (strict: {url})", strict_ceo, url)
            if reason not in message:
                fail(f"createWebhook (strict: {url})", f"refused, but not for the reason expected ({reason!r}): {message!r}")
            step(f"  {url}: 400 url, {message!r}")
    finally:
        stop(strict)
    # Whatever the instance allows, a URL must be an absolute http(s) URL without credentials.
    for url in ("ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x", "not a url"):
        expect_refused(f"createWebhook ({url})", ceo, url)
    error, _ = call("createWebhook (unknown event)", create_webhook, ApiError, client=ceo, status=400,
                    body=CreateWebhook(url=receiver.url("/hooks/x"), events=["report.exploded"]))
    if "events" not in (error.fields.to_dict() if error.fields else {}):
        fail("createWebhook (unknown event)", f"does not name `events`: {error.to_dict()}")

    step("webhooks: the CEO makes two webhooks: one hearing five events, one (failing twice) report.approved")
    events = ["report.created", "report.submitted", "report.approved", "report.rejected", "user.created"]
    main_hook, _ = call("createWebhook", create_webhook, WebhookWithSecret, client=ceo, status=201, body=CreateWebhook(
        url=receiver.url("/hooks/main"), events=events, description=f"contract {RUN}"))
    if not main_hook.secret.startswith("whsec_") or sorted(main_hook.events) != sorted(events):
        fail("createWebhook", f"secret {main_hook.secret[:6]!r}…, events {main_hook.events}")
    if main_hook.enterprise_id != enterprise.id or not main_hook.enabled or main_hook.url != receiver.url("/hooks/main"):
        fail("createWebhook", f"unexpected webhook {main_hook.to_dict() | {'secret': '…'}}")
    receiver.trust("/hooks/main", main_hook.secret)
    flaky_hook, _ = call("createWebhook (flaky)", create_webhook, WebhookWithSecret, client=ceo, status=201,
                         body=CreateWebhook(url=receiver.url("/hooks/main/flaky"), events=["report.approved"]))
    receiver.trust("/hooks/main/flaky", flaky_hook.secret)
    if flaky_hook.secret == main_hook.secret:
        fail("createWebhook (flaky)", "two webhooks share a secret")

    step("webhooks: the CEO makes a department head; the head writes, submits, and deletes reports; the CEO reviews")
    head_email, head_password = f"hooks-head-{RUN}@contract.test", f"contract-head-{uuid.uuid4().hex}"
    head, _ = call("createUser", create_user, User, client=ceo, status=201, body=CreateUser(
        full_name="Webhooks Head", email=head_email, password=head_password, role=Role.DEPARTMENTHEAD,
        enterprise_id=enterprise.id, department_id=finance.id))
    head_client = sign_in(head_email, head_password)

    def new_report(title, status):
        report, _ = call(f"createDepartmentReport ({status})", create_department_report, ReportDetail, finance.id,
                         client=head_client, status=201, body=CreateReport(
                             title=title, content="Figures", period_start=datetime.date(2026, 1, 1),
                             period_end=datetime.date(2026, 3, 31), status=status,
                             data=ReportData(columns=["Month", "Revenue"], rows=[["Jan", 1]])))
        return report

    approved = new_report(f"Approved {RUN}", ReportStatus.DRAFT)
    _, read = call("getReport", get_report, ReportDetail, approved.id, client=head_client)
    call("updateReport (submit)", update_report, ReportDetail, approved.id, client=head_client,
         body=UpdateReport(status=ReportStatus.SUBMITTED), if_match=read.headers["etag"])
    call("reviewReport (approve)", review_report, ReportDetail, approved.id, client=ceo,
         body=ReviewReport(status=ReportStatus.APPROVED, review_notes="Fine"))
    rejected = new_report(f"Rejected {RUN}", ReportStatus.SUBMITTED)
    call("reviewReport (reject)", review_report, ReportDetail, rejected.id, client=ceo,
         body=ReviewReport(status=ReportStatus.REJECTED, review_notes="Redo March"))
    deleted = new_report(f"Deleted {RUN}", ReportStatus.DRAFT)
    response = delete_report.sync_detailed(deleted.id, client=head_client)
    if int(response.status_code) != 204:
        fail("deleteReport", f"expected 204, got {int(response.status_code)}", response)

    # What the main webhook must hear, exactly: report.deleted is not among its events.
    expected = [
        ("user.created", head.id), ("report.created", approved.id), ("report.submitted", approved.id),
        ("report.approved", approved.id), ("report.created", rejected.id), ("report.submitted", rejected.id),
        ("report.rejected", rejected.id), ("report.created", deleted.id),
    ]
    receiver.wait(f"{len(expected)} deliveries to the main webhook", lambda r: len(r.at("/hooks/main")) >= len(expected))
    receiver.wait("the flaky webhook acknowledging report.approved", lambda r: any(a.answered == 204 for a in r.at("/hooks/main/flaky")))
    time.sleep(QUIET)

    step("webhooks: exactly the events heard arrived, each once, verified, with their data")
    arrivals = receiver.at("/hooks/main")
    unverified = [a for a in receiver.arrivals if not a.verified_with]
    if unverified:
        raise ContractError(f"deliveries that do not verify with the webhook's secret: {unverified}")
    got = sorted((a.type, str(a.data.get("reportId") or a.data.get("userId"))) for a in arrivals)
    want = sorted((t, str(i)) for t, i in expected)
    if got != want:
        raise ContractError(f"the main webhook heard {got}, expected {want}")
    ids = [a.msg_id for a in arrivals]
    if len(set(ids)) != len(ids) or not all(i.startswith("msg_") and len(i) == 36 for i in ids):
        raise ContractError(f"webhook-id not one `msg_<32 hex>` per delivery: {ids}")
    by_event = {(a.type, a.data.get("reportId") or a.data.get("userId")): a for a in arrivals}
    common = {"enterpriseId": str(enterprise.id), "departmentId": str(finance.id), "authorId": str(head.id)}
    check_event(by_event[("user.created", str(head.id))], "user.created", userId=str(head.id), email=head_email,
                role="DepartmentHead", status="active", enterpriseId=str(enterprise.id), departmentId=str(finance.id),
                actorId=str(ceo_id), fullName="Webhooks Head")
    for report, kind, status, actor, notes in [
        (approved, "report.created", "draft", head.id, None),
        (approved, "report.submitted", "submitted", head.id, None),
        (approved, "report.approved", "approved", ceo_id, "Fine"),
        (rejected, "report.created", "submitted", head.id, None),
        (rejected, "report.submitted", "submitted", head.id, None),
        (rejected, "report.rejected", "rejected", ceo_id, "Redo March"),
        (deleted, "report.created", "draft", head.id, None),
    ]:
        check_event(by_event[(kind, str(report.id))], kind, reportId=str(report.id), status=status, actorId=str(actor),
                    title=report.title, periodStart="2026-01-01", periodEnd="2026-03-31", reviewNotes=notes, **common)
    listed = deliveries_of("listWebhookDeliveries", ceo, main_hook.id)
    if listed.total != len(expected) or {msg_id(d.id) for d in listed.items} != set(ids):
        fail("listWebhookDeliveries", f"{listed.total} deliveries {[msg_id(d.id) for d in listed.items]}, received {ids}")
    wrong = [d.to_dict() for d in listed.items if (d.status, d.attempts, d.last_status) != ("delivered", 1, 204) or d.last_error]
    if wrong:
        fail("listWebhookDeliveries", f"not each delivered at the first attempt with 204: {wrong}")
    step(f"  {len(arrivals)} deliveries: {', '.join(sorted({a.type for a in arrivals}))}; report.deleted (not heard) did not come")

    step("webhooks: the receiver that failed twice got report.approved three times, acknowledged once")
    flaky = receiver.at("/hooks/main/flaky")
    if [a.answered for a in flaky] != [500, 500, 204] or len({a.msg_id for a in flaky}) != 1 or len({a.body for a in flaky}) != 1:
        raise ContractError(f"the flaky receiver got {flaky}, expected one message three times: 500, 500, 204")
    check_event(flaky[0], "report.approved", reportId=str(approved.id), status="approved")
    listed = deliveries_of("listWebhookDeliveries (flaky)", ceo, flaky_hook.id)
    if listed.total != 1:
        fail("listWebhookDeliveries (flaky)", f"{listed.total} deliveries, expected one")
    d = listed.items[0]
    if (d.status, d.attempts, d.last_status, d.last_error, msg_id(d.id)) != ("delivered", 3, 204, None, flaky[0].msg_id) or not d.delivered_at:
        fail("listWebhookDeliveries (flaky)", f"expected delivered after 3 attempts, last 204: {d.to_dict()}")
    step(f"  {d.event_type}: {d.status} after {d.attempts} attempts, last status {d.last_status}")

    step("webhooks: the test event arrives, and a redelivery brings it again with the same webhook-id")
    queued, _ = call("sendWebhookTestEvent", send_webhook_test_event, WebhookDelivery, main_hook.id, client=ceo, status=202)
    if (queued.event_type, queued.status, queued.webhook_id) != ("webhook.test", "pending", main_hook.id):
        fail("sendWebhookTestEvent", f"queued {queued.to_dict()}")
    test_id = msg_id(queued.id)
    receiver.wait("the test event", lambda r: any(a.msg_id == test_id for a in r.at("/hooks/main")))
    first = next(a for a in receiver.at("/hooks/main") if a.msg_id == test_id)
    check_event(first, "webhook.test", webhookId=str(main_hook.id), enterpriseId=str(enterprise.id))
    again, _ = call("redeliverWebhookDelivery", redeliver_webhook_delivery, WebhookDelivery, main_hook.id, queued.id,
                    client=ceo, status=202)
    if (again.id, again.status) != (queued.id, "pending"):
        fail("redeliverWebhookDelivery", f"queued {again.to_dict()}")
    receiver.wait("the redelivery", lambda r: sum(a.msg_id == test_id for a in r.at("/hooks/main")) >= 2)
    second = [a for a in receiver.at("/hooks/main") if a.msg_id == test_id][1]
    if second.body != first.body or not second.verified_with:
        raise ContractError(f"the redelivery differs from the delivery: {first.body!r} / {second.body!r}")
    call("redeliverWebhookDelivery (unknown)", redeliver_webhook_delivery, ApiError, main_hook.id, uuid.uuid4(),
         client=ceo, status=404)
    # The receiver has it; the server records the answer right after: wait for that record.
    d = None
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        d = next(d for d in deliveries_of("listWebhookDeliveries", ceo, main_hook.id).items if d.id == queued.id)
        if d.status != "pending":
            break
        time.sleep(0.05)
    if (d.status, d.attempts) != ("delivered", 1):
        fail("listWebhookDeliveries", f"the redelivered test event: {d.to_dict()}")

    step("webhooks: after rotating the secret, a delivery verifies with the new one and the previous one")
    rotated, _ = call("rotateWebhookSecret", rotate_webhook_secret, WebhookWithSecret, main_hook.id, client=ceo)
    if not rotated.secret.startswith("whsec_") or rotated.secret == main_hook.secret or rotated.id != main_hook.id:
        fail("rotateWebhookSecret", "no new secret")
    old, new = main_hook.secret, rotated.secret
    receiver.trust("/hooks/main", new, old)
    queued, _ = call("sendWebhookTestEvent (rotated)", send_webhook_test_event, WebhookDelivery, main_hook.id, client=ceo, status=202)
    receiver.wait("the test event after the rotation", lambda r: any(a.msg_id == msg_id(queued.id) for a in r.at("/hooks/main")))
    signed = next(a for a in receiver.at("/hooks/main") if a.msg_id == msg_id(queued.id))
    signatures = signed.headers.get("webhook-signature", "").split(" ")
    if len(signatures) != 2 or not all(s.startswith("v1,") for s in signatures):
        raise ContractError(f"after a rotation, webhook-signature is not two v1 signatures: {signatures}")
    if sorted(signed.verified_with) != sorted([new, old]):
        raise ContractError(f"the delivery verified with {len(signed.verified_with)} of the two live secrets")
    # Each signature alone: one verifies with the new secret only, the other with the old only;
    # and neither a stranger's secret nor a changed body verifies (the checks above can fail).
    for part in signatures:
        alone = {**signed.headers, "webhook-signature": part}
        which = [name for name, secret in (("new", new), ("old", old)) if verifies(secret, signed.body, alone)]
        if len(which) != 1:
            raise ContractError(f"signature {part[:12]}… verifies with {which or 'neither secret'}")
    if verifies(f"whsec_{'A' * 43}=", signed.body, signed.headers) or verifies(new, signed.body + b" ", signed.headers):
        raise ContractError("a delivery verifies with a wrong secret or a changed body")
    step(f"  webhook-signature carries 2 signatures; the new secret and the previous one each verify one")

    step("webhooks: a rotation that expires the previous secret at once (it leaked) signs with the new secret alone")
    third, _ = call(
        "rotateWebhookSecret (previousSecretHours=0)", rotate_webhook_secret, WebhookWithSecret, main_hook.id, client=ceo, previous_secret_hours=0
    )
    receiver.trust("/hooks/main", third.secret, new)
    queued, _ = call("sendWebhookTestEvent (expired at once)", send_webhook_test_event, WebhookDelivery, main_hook.id, client=ceo, status=202)
    receiver.wait("the test event after the second rotation", lambda r: any(a.msg_id == msg_id(queued.id) for a in r.at("/hooks/main")))
    signed = next(a for a in receiver.at("/hooks/main") if a.msg_id == msg_id(queued.id))
    signatures = signed.headers.get("webhook-signature", "").split(" ")
    if len(signatures) != 1 or signed.verified_with != [third.secret]:
        raise ContractError(f"the previous secret still signs after it was expired at once: {len(signatures)} signatures")
    step("  webhook-signature carries 1 signature, which the newest secret verifies")

    receiver.stop()
    step(f"webhooks: {integration.calls} calls, every answer parsed into its model; "
         f"{len(receiver.arrivals)} deliveries received, each verified")


def verifies(secret, body, headers) -> bool:
    try:
        Webhook(secret).verify(body, headers)
        return True
    except WebhookVerificationError:
        return False


if __name__ == "__main__":
    try:
        main()
    except ContractError as error:
        sys.exit(f"contract: FAILED {error}")
