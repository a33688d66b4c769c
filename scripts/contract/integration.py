"""Walks the platform's main path through the Python client that openapi-python-client generated
from openapi.json, untouched: a program signs in, makes a personal access token and works with it,
an enterprise is onboarded, a department head writes and submits a report, the CEO approves it and
downloads it in every format, and the dashboards and monitoring are read. Then the safety
features, through the same client: an Idempotency-Key replay, the rate-limit headers, an error
read as the ApiError model.

Every answer must parse into the model the document promises for it: `parsed` an instance of that
class (never None, never an ApiError where success was expected), with no property the schema
does not declare. Any miss fails the run, naming the operation.

Usage (run.sh sets it up): integration.py BASE_URL, with the generated package `platform_client`
importable and CONTRACT_ADMIN_EMAIL / CONTRACT_ADMIN_PASSWORD naming the seeded admin.
"""

import datetime
import os
import sys
import uuid

import attrs
import httpx
from platform_client import AuthenticatedClient, Client
from platform_client.api.auth import get_me, login
from platform_client.api.dashboards import get_admin_dashboard, get_admin_statistics, get_ceo_dashboard
from platform_client.api.enterprises import create_enterprise, get_enterprise, list_enterprise_departments
from platform_client.api.monitoring import list_sessions
from platform_client.api.reports import (
    create_department_report,
    export_report,
    get_report,
    review_report,
    update_report,
)
from platform_client.api.tokens import create_api_token
from platform_client.api.users import create_user
from platform_client.models import (
    AdminDashboard,
    AdminStatistics,
    ApiError,
    CeoDashboard,
    CreateApiToken,
    CreatedApiToken,
    CreateEnterprise,
    CreateReport,
    CreateUser,
    Department,
    DepartmentType,
    Enterprise,
    ExportFormat,
    LoginRequest,
    LoginResponse,
    PageSession,
    ReportData,
    ReportDetail,
    ReportStatus,
    ReviewReport,
    Role,
    UpdateReport,
    User,
)
from platform_client.types import File, Response

BASE = sys.argv[1].rstrip("/") + "/api/v1"
ADMIN_EMAIL, ADMIN_PASSWORD = os.environ["CONTRACT_ADMIN_EMAIL"], os.environ["CONTRACT_ADMIN_PASSWORD"]
# The PDF export renders a document: more than the generator's default 5 s on a busy machine.
TIMEOUT = httpx.Timeout(60.0)
RUN = uuid.uuid4().hex[:8]
calls = 0


class ContractError(Exception):
    pass


def fail(operation: str, message: str, response: Response | None = None) -> None:
    body = ""
    if response is not None:
        body = f"\n  status {int(response.status_code)}, body: {response.content[:600]!r}"
    raise ContractError(f"{operation}: {message}{body}")


def undeclared(value, path="$"):
    """Paths of the properties the server sent that the schema does not declare. A model whose
    schema is only a map (`additionalProperties`, no `properties`, like ApiError.fields) keeps its
    entries there by design."""
    if attrs.has(type(value)):
        declared = [f.name for f in attrs.fields(type(value)) if f.name != "additional_properties"]
        extra = getattr(value, "additional_properties", {})
        found = [f"{path}.{key}" for key in extra] if declared else []
        for name in declared:
            found += undeclared(getattr(value, name), f"{path}.{name}")
        return found
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in undeclared(item, f"{path}[{i}]")]
    return []


def expect(operation: str, response: Response, model: type, *, status: int | None = None, item: type | None = None):
    """Checks one answer: its status (when given), the rate-limit headers every answer carries, and
    that its body parsed into `model` (a list of `item` when model is list). Returns the parsed body."""
    global calls
    calls += 1
    if status is not None and int(response.status_code) != status:
        fail(operation, f"expected status {status}, got {int(response.status_code)}", response)
    for header in ("ratelimit", "ratelimit-policy"):
        if not response.headers.get(header):
            fail(operation, f"no `{header}` header (headers: {dict(response.headers)})")
    parsed = response.parsed
    if parsed is None:
        fail(operation, f"the client could not parse the answer (expected {model.__name__})", response)
    if model is not ApiError and isinstance(parsed, ApiError):
        fail(operation, f"expected {model.__name__}, got ApiError {parsed.code!r}: {parsed.message}", response)
    if not isinstance(parsed, model):
        fail(operation, f"expected {model.__name__}, got {type(parsed).__name__}", response)
    if item is not None:
        for i, element in enumerate(parsed):
            if not isinstance(element, item):
                fail(operation, f"item {i}: expected {item.__name__}, got {type(element).__name__}", response)
    extra = undeclared(parsed)
    if extra:
        fail(operation, f"properties the schema does not declare: {', '.join(extra)}", response)
    return parsed


def call(operation: str, function, model: type, *args, status: int | None = None, item: type | None = None, **kwargs):
    """Calls a generated operation's sync_detailed and checks its answer with expect()."""
    try:
        response = function.sync_detailed(*args, **kwargs)
    except Exception as error:  # the generated parser raises on a body it cannot read
        raise ContractError(f"{operation}: the generated client failed: {type(error).__name__}: {error}") from error
    return expect(operation, response, model, status=status, item=item), response


def step(text: str) -> None:
    print(f"contract: {text}", flush=True)


def sign_in(email: str, password: str) -> AuthenticatedClient:
    anonymous = Client(base_url=BASE, timeout=TIMEOUT, raise_on_unexpected_status=True)
    session, _ = call("login", login, LoginResponse, client=anonymous, body=LoginRequest(email=email, password=password))
    if session.user.email != email:
        fail("login", f"signed in as {session.user.email}, not {email}")
    return AuthenticatedClient(base_url=BASE, token=session.token, timeout=TIMEOUT, raise_on_unexpected_status=True)


def main() -> None:
    step("the admin signs in and makes a personal access token")
    admin_session = sign_in(ADMIN_EMAIL, ADMIN_PASSWORD)
    # No `reports:*`: the end proves the token is held to its scopes with a report the admin reads.
    scopes = ["enterprises:write", "users:write", "dashboards:read", "monitoring:read"]
    created, _ = call(
        "createApiToken",
        create_api_token,
        CreatedApiToken,
        client=admin_session,
        body=CreateApiToken(name=f"contract {RUN}", scopes=scopes),
        status=201,
    )
    if not created.token.startswith("ept_") or sorted(created.scopes) != sorted(scopes):
        fail("createApiToken", f"unexpected token {created.prefix!r} with scopes {created.scopes}")
    admin = AuthenticatedClient(base_url=BASE, token=created.token, timeout=TIMEOUT, raise_on_unexpected_status=True)
    me, _ = call("getMe", get_me, User, client=admin)
    if me.role != Role.PLATFORMADMIN or me.email != ADMIN_EMAIL:
        fail("getMe", f"the token acts as {me.email} ({me.role}), not the admin")

    step("the admin (with the token) creates an enterprise and its CEO")
    ceo_email, ceo_password = f"ceo-{RUN}@contract.test", f"contract-ceo-{uuid.uuid4().hex}"
    enterprise, _ = call(
        "createEnterprise",
        create_enterprise,
        Enterprise,
        client=admin,
        body=CreateEnterprise(
            name=f"Contract {RUN}",
            description="Made by the contract test",
            ceo_full_name="Contract CEO",
            ceo_email=ceo_email,
            ceo_password=ceo_password,
        ),
        status=201,
    )
    departments, _ = call(
        "listEnterpriseDepartments",
        list_enterprise_departments,
        list,
        enterprise.id,
        client=admin,
        item=Department,
    )
    finance = next((d for d in departments if d.type_ == DepartmentType.FINANCE), None)
    if finance is None:
        fail("listEnterpriseDepartments", f"no finance department among {[str(d.type_) for d in departments]}")

    step("the admin creates a department head, twice with one Idempotency-Key: one account")
    head_email, head_password = f"head-{RUN}@contract.test", f"contract-head-{uuid.uuid4().hex}"
    new_head = CreateUser(
        full_name="Contract Head",
        email=head_email,
        password=head_password,
        role=Role.DEPARTMENTHEAD,
        enterprise_id=enterprise.id,
        department_id=finance.id,
    )
    key = f"contract-{uuid.uuid4()}"
    head, first = call("createUser", create_user, User, client=admin, body=new_head, idempotency_key=key, status=201)
    replayed, again = call("createUser (replay)", create_user, User, client=admin, body=new_head, idempotency_key=key, status=201)
    if replayed.id != head.id:
        fail("createUser (replay)", f"a repeat with the same Idempotency-Key made another user ({replayed.id} != {head.id})")
    if again.headers.get("idempotent-replayed") != "true":
        fail("createUser (replay)", f"no `idempotent-replayed: true` header (headers: {dict(again.headers)})")
    if first.headers.get("idempotent-replayed"):
        fail("createUser", "the first request says it was replayed")
    if head.role != Role.DEPARTMENTHEAD or head.department_id != finance.id:
        fail("createUser", f"made {head.role} in department {head.department_id}")

    step("the head signs in, writes a report in their department and submits it")
    head_client = sign_in(head_email, head_password)
    report, _ = call(
        "createDepartmentReport",
        create_department_report,
        ReportDetail,
        finance.id,
        client=head_client,
        body=CreateReport(
            title=f"Quarterly figures {RUN}",
            content="Revenue by month.",
            period_start=datetime.date(2026, 1, 1),
            period_end=datetime.date(2026, 3, 31),
            status=ReportStatus.DRAFT,
            data=ReportData(columns=["Month", "Revenue"], rows=[["Jan", 100], ["Feb", 120], ["Mar", 90]]),
        ),
        status=201,
    )
    if report.status != ReportStatus.DRAFT:
        fail("createDepartmentReport", f"a new report is {report.status}, not draft")
    _, read = call("getReport", get_report, ReportDetail, report.id, client=head_client)
    etag = read.headers.get("etag")
    if not etag:
        fail("getReport", "no ETag")
    submitted, _ = call(
        "updateReport",
        update_report,
        ReportDetail,
        report.id,
        client=head_client,
        body=UpdateReport(status=ReportStatus.SUBMITTED),
        if_match=etag,
    )
    if submitted.status != ReportStatus.SUBMITTED:
        fail("updateReport", f"the report is {submitted.status} after submitting")

    step("the CEO signs in, approves the report and downloads it as xlsx, csv and pdf")
    ceo = sign_in(ceo_email, ceo_password)
    approved, _ = call(
        "reviewReport",
        review_report,
        ReportDetail,
        report.id,
        client=ceo,
        body=ReviewReport(status=ReportStatus.APPROVED, review_notes="Approved by the contract test"),
    )
    if approved.status != ReportStatus.APPROVED:
        fail("reviewReport", f"the report is {approved.status} after approval")
    magic = {ExportFormat.XLSX: b"PK", ExportFormat.PDF: b"%PDF"}
    for fmt in (ExportFormat.XLSX, ExportFormat.CSV, ExportFormat.PDF):
        file, response = call(f"exportReport ({fmt})", export_report, File, report.id, client=ceo, format_=fmt)
        data = file.payload.read()
        if not isinstance(data, bytes) or not data:
            fail(f"exportReport ({fmt})", f"the download is not bytes: {type(data).__name__}")
        if fmt in magic and not data.startswith(magic[fmt]):
            fail(f"exportReport ({fmt})", f"starts with {data[:8]!r}, not {magic[fmt]!r}")
        if fmt == ExportFormat.CSV and b"Revenue" not in data:
            fail(f"exportReport ({fmt})", f"the figures are not in the file: {data[:200]!r}")
        step(f"  {fmt}: {len(data)} bytes, {response.headers.get('content-type')}")

    step("dashboards: the CEO's, then the admin's and the platform statistics (with the token)")
    dashboard, _ = call("getCeoDashboard", get_ceo_dashboard, CeoDashboard, client=ceo)
    if dashboard.enterprise_id != enterprise.id:
        fail("getCeoDashboard", f"the dashboard of {dashboard.enterprise_id}, not {enterprise.id}")
    call("getAdminDashboard", get_admin_dashboard, AdminDashboard, client=admin)
    call("getAdminStatistics", get_admin_statistics, AdminStatistics, client=admin, days=7)

    step("monitoring: the sessions just opened (with the token)")
    sessions, _ = call("listSessions", list_sessions, PageSession, client=admin, enterprise_id=enterprise.id)
    seen = {s.user.id for s in sessions.items}
    if head.id not in seen:
        fail("listSessions", f"the head's session is not among the enterprise's {sessions.total}")

    step("errors parse as ApiError: an unknown enterprise, and a report outside the token's scopes")
    error, response = call("getEnterprise (unknown)", get_enterprise, ApiError, uuid.uuid4(), client=admin, status=404)
    if (error.status, error.code) != (404, "not_found") or not error.request_id:
        fail("getEnterprise (unknown)", f"an incomplete ApiError: {error.to_dict()}")
    if response.headers.get("x-request-id") != error.request_id:
        fail("getEnterprise (unknown)", "requestId differs from the x-request-id header")
    # The admin's role reads any report: their session does, their token (no reports scope) may not.
    read, _ = call("getReport (admin session)", get_report, ReportDetail, report.id, client=admin_session, enterprise_id=enterprise.id)
    if read.status != ReportStatus.APPROVED:
        fail("getReport (admin session)", f"the report is {read.status}")
    error, _ = call(
        "getReport (token without the scope)", get_report, ApiError, report.id, client=admin, enterprise_id=enterprise.id, status=403
    )
    if (error.status, error.code) != (403, "insufficient_scope") or not error.request_id:
        fail("getReport (token without the scope)", f"not the ApiError expected: {error.to_dict()}")

    step(f"{calls} calls, every answer parsed into its model")


if __name__ == "__main__":
    try:
        main()
    except ContractError as error:
        sys.exit(f"contract: FAILED {error}")
