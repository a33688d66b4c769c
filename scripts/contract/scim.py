"""SCIM to RFC 7643 and 7644, judged by an independent tester: scim2-tester (pinned in
requirements.txt) runs every check it has against `/api/v1/scim/v2` with an enterprise's service
credential, as an identity provider's provisioning would connect: discovery (the configuration,
the resource types and schemas, one by one, and the methods they refuse), an unknown address,
and for each resource type the server publishes creation, reading (with `attributes` and
`excludedAttributes`, listed and searched), replacement, deletion and PATCH `add`, `replace` and
`remove` of every attribute its schema declares, each value compared with what the server then
answers. Any check that ends in an error fails the run; every result is printed.

One rule of this server is configured in the tester, not skipped: an account is an e-mail
address, so the tester's made-up userNames are addresses at the enterprise's domain (its other
values are its own: random text, or one of the canonical values the schema publishes).

Usage (run.sh sets it up): scim.py BASE_URL, with CONTRACT_ADMIN_EMAIL / CONTRACT_ADMIN_PASSWORD
set.
"""

import os
import sys
import uuid

import httpx2
import scim2_tester.checkers.patch_add
import scim2_tester.checkers.patch_replace
import scim2_tester.filling
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_tester import Status, check_server

BASE = sys.argv[1].rstrip("/")
ADMIN_EMAIL, ADMIN_PASSWORD = os.environ["CONTRACT_ADMIN_EMAIL"], os.environ["CONTRACT_ADMIN_PASSWORD"]
RUN = uuid.uuid4().hex[:8]
DOMAIN = f"scim-{RUN}.example"


def answer(response: httpx2.Response, status: int) -> dict:
    if response.status_code != status:
        sys.exit(f"scim: {response.request.method} {response.request.url} answered {response.status_code}, not {status}: {response.text[:600]}")
    return response.json()


def service_credential() -> str:
    """An enterprise, its CEO, and a service credential with both SCIM scopes."""
    with httpx2.Client(base_url=f"{BASE}/api/v1", timeout=60) as api:
        admin = answer(api.post("/auth/login", json={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}), 200)["token"]
        ceo_email, ceo_password = f"ceo@{DOMAIN}", f"scim-contract-{RUN}-password"
        enterprise = answer(
            api.post(
                "/enterprises",
                headers={"Authorization": f"Bearer {admin}"},
                json={"name": f"Scim {RUN}", "description": "scim2-tester", "ceoFullName": "Scim Ceo", "ceoEmail": ceo_email, "ceoPassword": ceo_password},
            ),
            201,
        )
        ceo = answer(api.post("/auth/login", json={"email": ceo_email, "password": ceo_password}), 200)["token"]
        made = answer(
            api.post(
                f"/enterprises/{enterprise['id']}/service-tokens",
                headers={"Authorization": f"Bearer {ceo}"},
                json={"name": "scim2-tester", "scopes": ["scim:read", "scim:write"]},
            ),
            201,
        )
        return made["token"]


made_up = scim2_tester.filling.generate_random_value


def generate_random_value(context, path, mutability=None, required=None):
    """The tester's own value, except that a userName is an e-mail address."""
    value = made_up(context, path=path, mutability=mutability, required=required)
    if value is not None and str(path).lower().endswith("username"):
        value = f"{uuid.uuid4().hex}@{DOMAIN}"
    return value


for module in (scim2_tester.filling, scim2_tester.checkers.patch_add, scim2_tester.checkers.patch_replace):
    module.generate_random_value = generate_random_value

token = service_credential()
with httpx2.Client(base_url=f"{BASE}/api/v1/scim/v2", headers={"Authorization": f"Bearer {token}"}, timeout=60) as http:
    results = check_server(SyncSCIMClient(http))

failed = [r for r in results if r.status in (Status.ERROR, Status.CRITICAL)]
for result in results:
    where = f"[{result.resource_type}] " if result.resource_type else ""
    print(f"scim2-tester: {result.status.name:<10} {where}{result.title}: {result.reason}")
counts = {status.name: sum(1 for r in results if r.status == status) for status in Status}
print("scim2-tester: " + ", ".join(f"{n} {name.lower()}" for name, n in counts.items() if n))
if not results or failed:
    for result in failed:
        print(f"scim2-tester: FAILED {result.title}: {result.reason}\n  data: {result.data!r}"[:3000], file=sys.stderr)
    sys.exit(f"scim: scim2-tester found {len(failed)} failures")
