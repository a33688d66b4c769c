"""Builds the world the API fuzzer runs in, through the API itself, and writes one schemathesis
config per role (admin, CEO, department head, department user) whose path parameters are real
ids, so every operation is reached past its 404s.

Destructive operations get ids of their own (a spare enterprise, a spare user, a spare draft),
so they cannot take the rest of the world away mid-run. Usage: world.py BASE_URL OUT_DIR
"""

import base64
import hashlib
import io
import json
import os
import sys
import time
import urllib.error
import urllib.request
import uuid
import zipfile

import requests  # schemathesis' own

BASE, OUT = sys.argv[1], sys.argv[2]
ADMIN = (os.environ["FUZZ_ADMIN_EMAIL"], os.environ["FUZZ_ADMIN_PASSWORD"])


def call(method, path, token=None, body=None):
    req = urllib.request.Request(BASE + "/api/v1" + path, data=json.dumps(body).encode() if body is not None else None, method=method)
    req.add_header("content-type", "application/json")
    if token:
        req.add_header("authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req) as resp:
            text = resp.read()
            return json.loads(text) if text else None
    except urllib.error.HTTPError as e:
        sys.exit(f"{method} {path}: {e.code} {e.read().decode()}")


def login(email, password):
    return call("POST", "/auth/login", body={"email": email, "password": password})["token"]


def enterprise(admin, name):
    slug = name.lower()
    ent = call("POST", "/enterprises", admin, {"name": name, "description": "Fuzzed", "ceoFullName": f"{name} CEO",
                                               "ceoEmail": f"ceo@{slug}.fuzz", "ceoPassword": "fuzz-ceo-password"})
    return ent["id"], login(f"ceo@{slug}.fuzz", "fuzz-ceo-password")


def staff(ceo, email, role, department):
    return call("POST", "/users", ceo, {"fullName": email.split("@")[0].title(), "email": email, "password": "fuzz-staff-password",
                                        "role": role, "departmentId": department})["id"]


def report(token, department, title, status):
    return call("POST", f"/departments/{department}/reports", token, {
        "title": title, "content": "Figures", "periodStart": "2026-01-01", "periodEnd": "2026-03-31", "status": status,
        "data": {"columns": ["Month", "Revenue"], "rows": [["Jan", 1], ["Feb", 2]]}})["id"]


admin = login(*ADMIN)
ent, ceo = enterprise(admin, "Acme")
spare_ent, spare_ceo = enterprise(admin, "Spare")
departments = call("GET", f"/enterprises/{ent}/departments", ceo)
finance = next(d["id"] for d in departments if d["type"] == "finance")
head_id = staff(ceo, "head@acme.fuzz", "DepartmentHead", finance)
call("PUT", f"/enterprises/{ent}/departments/{finance}", ceo, {"headId": head_id})
staff(ceo, "user@acme.fuzz", "DepartmentUser", finance)
spare_user = staff(ceo, "spare@acme.fuzz", "DepartmentUser", finance)
# Erased on its own: an erased account refuses changes, which would stop the other operations on spare_user.
# In the spare enterprise: an erasure withdraws its enterprise's exports, and Acme's is read below.
erasable_user = staff(spare_ceo, "erasable@spare.fuzz", "DepartmentUser", None)
head = login("head@acme.fuzz", "fuzz-staff-password")
user = login("user@acme.fuzz", "fuzz-staff-password")
submitted = report(user, finance, "Submitted", "submitted")
draft = report(user, finance, "Draft", "draft")
spare_draft = report(user, finance, "Spare draft", "draft")
# A session nobody's fuzzing token depends on: the spare user's.
spare_token = login("spare@acme.fuzz", "fuzz-staff-password")
spare_session = call("GET", "/auth/sessions", spare_token)["items"][0]["id"]

# The messenger: everyone's keys, a group with its first key epoch and a message. The server
# cannot tell random bytes from ciphertext, so random bytes stand in for what browsers send.
def b64(n, first=None):
    raw = bytearray(os.urandom(n))
    if first is not None:
        raw[0] = first
    return base64.b64encode(bytes(raw)).decode()


people = {}
for name, token in [("ceo", ceo), ("head", head), ("user", user)]:
    call("POST", "/messaging/keys", token, {"agreementKey": b64(65, 4), "signingKey": b64(65, 4)})
    people[name] = call("GET", "/auth/me", token)["id"]
group = call("POST", "/messaging/group-chats", ceo, {"name": "Fuzz", "participantIds": [people["head"], people["user"]]})["id"]
keys = [{"userId": uid, "keyVersion": 1, "wrappedKey": b64(113)} for uid in people.values()]
call("POST", f"/messaging/conversations/{group}/epochs", ceo, {"epoch": 1, "creatorKeyVersion": 1, "keys": keys})
message = call("POST", "/messaging/messages", ceo, {"id": str(uuid.uuid4()), "conversationId": group, "epoch": 1, "senderKeyVersion": 1,
                                                     "iv": b64(12), "ciphertext": b64(48), "signature": b64(64)})["id"]

# Spreadsheets: one to read and save, a spare to delete.
sheet = call("POST", f"/departments/{finance}/spreadsheets", user, {"name": "Fuzz"})["id"]
spare_sheet = call("POST", f"/departments/{finance}/spreadsheets", user, {"name": "Spare"})["id"]

# Webhooks: one to read, change and redeliver (its test event), a spare to delete. The server runs
# with WEBHOOK_ALLOW_PRIVATE_NETWORKS, so a local URL is accepted (nothing listens there).
hook = call("POST", "/webhooks", ceo, {"url": "http://127.0.0.1:9/fuzz", "events": ["report.approved"]})["id"]
spare_hook = call("POST", "/webhooks", ceo, {"url": "http://127.0.0.1:9/spare", "events": ["user.created"]})["id"]
delivery = call("POST", f"/webhooks/{hook}/test", ceo)["id"]

# Single sign-on for Acme (the tests' OpenID provider, when run.sh's caller started one): a proven
# domain to read and check again, and a pending one to give up.
sso_ids = {}
if os.environ.get("OIDC_ISSUER"):
    call("PUT", f"/enterprises/{ent}/sso", ceo, {"issuer": os.environ["OIDC_ISSUER"], "clientId": "platform", "clientSecret": "platform-secret",
                                                  "domains": ["acme.fuzz", "spare.acme.fuzz"], "provisioning": "just_in_time"})
    call("POST", f"/enterprises/{ent}/sso/domains/acme.fuzz/verify?approve=true", admin)
    sso_ids = {"getEnterpriseSso": {"id": ent}, "listSsoDomains": {"id": ent}, "addSsoDomain": {"id": ent},
               "verifySsoDomain": {"id": ent, "domain": "acme.fuzz"}, "deleteSsoDomain": {"id": ent, "domain": "spare.acme.fuzz"}}

# Someone invited who has not accepted: their invitation is resent (the server has no mail
# server here: the e-mails wait in its outbox).
invited = call("POST", "/users", ceo, {"fullName": "Invited", "email": "invited@fuzz.example", "role": "DepartmentUser", "departmentId": finance})["id"]

# An export of Acme, to read and download (written in the background; ready within seconds).
export = call("POST", f"/enterprises/{ent}/exports", ceo)["id"]
for _ in range(600):
    if call("GET", f"/enterprises/{ent}/exports/{export}", ceo)["status"] not in ("queued", "running"):
        break
    time.sleep(0.1)

# An enterprise imported from a small archive (format 2, as an export writes it), to read.
def imported(admin, name):
    files = {"enterprise.json": json.dumps({"id": str(uuid.uuid4()), "name": name, "description": "Imported", "isActive": True}).encode(),
             "departments.json": b"[]", "people.jsonl": b"", "reports.jsonl": b"", "spreadsheets.json": b"[]", "audit.jsonl": b""}
    manifest = {"formatVersion": 2, "counts": {}, "files": [{"path": p, "sha256": hashlib.sha256(c).hexdigest()} for p, c in files.items()]}
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("manifest.json", json.dumps(manifest))
        for path, content in files.items():
            z.writestr(path, content)
    resp = requests.post(BASE + "/api/v1/enterprises/imports", headers={"authorization": f"Bearer {admin}"},
                         files={"archive": ("imported.zip", archive.getvalue(), "application/zip")}, data={"invite": "false"}, timeout=60)
    if resp.status_code != 202:
        sys.exit(f"POST /enterprises/imports: {resp.status_code} {resp.text}")
    return resp.json()["id"]


enterprise_import = imported(admin, "Imported")

# Operation id -> its path parameters. Deleting and changing people or enterprises uses spares.
ids = {
    "getEnterprise": {"id": ent}, "updateEnterprise": {"id": spare_ent}, "deleteEnterprise": {"id": spare_ent},
    "restoreEnterprise": {"id": spare_ent}, "purgeEnterprise": {"id": spare_ent},
    "createEnterpriseExport": {"id": ent}, "listEnterpriseExports": {"id": ent},
    "getEnterpriseExport": {"id": ent, "exportId": export}, "downloadEnterpriseExport": {"id": ent, "exportId": export},
    "getEnterpriseImport": {"importId": enterprise_import},
    # Limits on the spare enterprise: tiny ones on Acme would refuse the rest of the run.
    "getEnterpriseUsage": {"id": ent}, "setEnterpriseLimits": {"id": spare_ent},
    "getEnterpriseProvisioning": {"id": ent}, "updateEnterpriseProvisioning": {"id": spare_ent},
    "listEnterpriseUsers": {"id": ent}, "listEnterpriseDepartments": {"id": ent}, "listEnterpriseReports": {"id": ent},
    "getDepartment": {"id": ent, "deptId": finance}, "updateDepartment": {"id": ent, "deptId": finance},
    "assignDepartmentUser": {"id": ent, "deptId": finance},
    "removeDepartmentUser": {"id": ent, "deptId": finance, "userId": spare_user},
    "getUser": {"id": spare_user}, "updateUser": {"id": spare_user}, "deleteUser": {"id": spare_user},
    "eraseUser": {"id": erasable_user},
    "resendInvitation": {"id": invited},
    "createDepartmentReport": {"id": finance}, "listDepartmentReports": {"id": finance},
    "getReport": {"id": submitted}, "updateReport": {"id": draft}, "deleteReport": {"id": spare_draft},
    "reviewReport": {"id": submitted}, "exportReport": {"id": submitted},
    "getMessagingKeys": {"userId": people["user"]}, "getConversation": {"id": group}, "updateConversation": {"id": group},
    "archiveConversation": {"id": group}, "unarchiveConversation": {"id": group}, "addConversationMembers": {"id": group},
    "removeConversationMember": {"id": group, "userId": spare_user}, "listConversationKeys": {"id": group},
    "createConversationEpoch": {"id": group}, "listMessages": {"id": group}, "markMessageRead": {"id": message},
    "sendTyping": {"id": group},
    "listSpreadsheets": {"id": finance}, "createSpreadsheet": {"id": finance}, "importSpreadsheet": {"id": finance},
    "getSpreadsheet": {"id": sheet}, "saveSpreadsheet": {"id": sheet}, "deleteSpreadsheet": {"id": spare_sheet},
    "exportSpreadsheet": {"id": sheet}, "getSpreadsheetRange": {"id": sheet},
    "getWebhook": {"id": hook}, "updateWebhook": {"id": hook}, "deleteWebhook": {"id": spare_hook},
    "rotateWebhookSecret": {"id": hook}, "sendWebhookTestEvent": {"id": hook}, "listWebhookDeliveries": {"id": hook},
    "redeliverWebhookDelivery": {"id": hook, "deliveryId": delivery},
    "logoutSession": {"id": spare_session}, "logoutOtherSessions": {"id": spare_session}, "logoutMySession": {"id": spare_session},
    **sso_ids,
}
# When FUZZ_CHECKS asks for negative_data_rejection (run.sh does): invalid input must be refused, with
# schemathesis' statuses for that, 413 (a body past the limit is refused before it is read) and 412
# (an If-Match the resource no longer matches is refused before the body is read: RFC 9110 §13.2.2).
NEGATIVE_DATA = [
    "[checks.negative_data_rejection]",
    'expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "412", "413", "415", "422", "428", "429", "5xx"]',
    "",
] if "negative_data_rejection" in os.environ.get("FUZZ_CHECKS", "") else []
with open(os.path.join(OUT, "anonymous.toml"), "w") as f:
    f.write("\n".join(["[auth]", "auto-signup = false", "", *NEGATIVE_DATA]))
tokens = {"admin": admin, "ceo": ceo, "head": head, "user": user}
os.makedirs(OUT, exist_ok=True)
for role, token in tokens.items():
    lines = [f'headers = {{ Authorization = "Bearer {token}" }}', "", *NEGATIVE_DATA]
    if role == "admin":
        # The admin names the enterprise of tenant-scoped reads.
        lines += ['[parameters]', f'"query.enterpriseId" = "{ent}"', ""]
    for operation, params in ids.items():
        lines += ["[[operations]]", f'include-operation-id = "{operation}"']
        lines += ["parameters = { " + ", ".join(f'"path.{k}" = "{v}"' for k, v in params.items()) + " }", ""]
    with open(os.path.join(OUT, f"{role}.toml"), "w") as f:
        f.write("\n".join(lines))
print(" ".join(tokens))
