"""Drives the server's SCIM endpoints with a real SCIM client library (`scim2-client`, which
validates every answer against RFC 7643's models and the schemas the server serves), as an
identity provider's provisioning would, and prints what it saw as JSON for the API test to judge.

    python scim_client.py BASE_URL TOKEN DOMAIN
"""

import json
import sys

from httpx2 import Client
from scim2_client.engines.httpx2 import SyncSCIMClient
from scim2_models import PatchOp, PatchOperation, SearchRequest

base, token, domain = sys.argv[1], sys.argv[2], sys.argv[3]
seen = {}

with Client(base_url=base, headers={"Authorization": f"Bearer {token}"}) as http:
    client = SyncSCIMClient(http)
    # ServiceProviderConfig, ResourceTypes and Schemas, read and validated.
    client.discover()
    seen["patchSupported"] = client.service_provider_config.patch.supported
    User = client.get_resource_model("User")

    pat = User(
        user_name=f"pat@{domain}",
        name={"given_name": "Pat", "family_name": "Doe"},
        display_name="Pat Doe",
        emails=[{"value": f"pat@{domain}", "primary": True}],
        active=True,
        external_id="idp-pat",
    )
    created = client.create(pat)
    seen["created"] = {"id": created.id, "userName": created.user_name, "displayName": created.display_name,
                       "externalId": created.external_id, "active": created.active}

    fetched = client.query(User, created.id)
    seen["fetchedUserName"] = fetched.user_name

    page = client.query(User, query_parameters=SearchRequest(filter=f'userName eq "pat@{domain}"'))
    seen["byUserName"] = [r.id for r in page.resources or []]
    page = client.query(User, query_parameters=SearchRequest(filter='externalId eq "idp-pat"'))
    seen["byExternalId"] = [r.id for r in page.resources or []]
    page = client.query(User, query_parameters=SearchRequest(filter=f'userName eq "nobody@{domain}"'))
    seen["nobody"] = page.total_results

    fetched.display_name = "Pat Smith"
    fetched.name.family_name = "Smith"
    replaced = client.replace(fetched)
    seen["replacedDisplayName"] = replaced.display_name

    patch = PatchOp[User](operations=[PatchOperation[User](op=PatchOperation.Op.replace_, path="active", value=False)])
    patched = client.modify(User, created.id, patch)
    seen["patchedActive"] = patched.active if patched is not None else client.query(User, created.id).active

    client.delete(User, created.id)
    gone = client.query(User, created.id, raise_scim_errors=False)
    seen["afterDelete"] = {"status": getattr(gone, "status", None), "schemas": getattr(gone, "schemas", None)}

print(json.dumps(seen))
