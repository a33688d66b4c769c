"""A software passkey authenticator for the API tests: what a browser and its authenticator answer
to the server's WebAuthn options, computed outside the server. The keys, signatures and encodings
come from libraries (`cryptography` for P-256 ECDSA, Yubico's `fido2` for CBOR and COSE keys);
this file only lays out the WebAuthn structures (W3C WebAuthn Level 3, sections 5 and 6.1).

    python authenticator.py create ORIGIN   < {"publicKey": creation options JSON}
        -> {"credential": RegistrationResponseJSON, "key": KEY}
    python authenticator.py get ORIGIN      < {"publicKey": request options JSON, "key": KEY,
                                               "userVerified": true, "counter": null}
        -> {"credential": AuthenticationResponseJSON, "key": KEY (its counter moved on)}

KEY is the authenticator's private state (PEM key, credential id, user handle, rp id, counter).
"""

import base64
import hashlib
import json
import os
import struct
import sys

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from fido2.cose import ES256

UP, UV, AT = 0x01, 0x04, 0x40


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def client_data(kind: str, challenge: str, origin: str) -> bytes:
    return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()


def create(options: dict, origin: str) -> dict:
    if not any(p.get("alg") == -7 for p in options["pubKeyCredParams"]):
        raise SystemExit("ES256 not offered")
    key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(32)
    rp_id = options["rp"]["id"]
    cose_key = cbor.encode(ES256.from_cryptography_key(key.public_key()))
    auth_data = (
        hashlib.sha256(rp_id.encode()).digest()
        + bytes([UP | UV | AT])
        + struct.pack(">I", 0)
        + b"\0" * 16
        + struct.pack(">H", len(credential_id))
        + credential_id
        + cose_key
    )
    attestation = cbor.encode({"fmt": "none", "attStmt": {}, "authData": auth_data})
    data = client_data("webauthn.create", options["challenge"], origin)
    state = {
        "pem": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode(),
        "credentialId": b64url(credential_id),
        "userHandle": options["user"]["id"],
        "rpId": rp_id,
        "counter": 0,
    }
    credential = {
        "id": b64url(credential_id),
        "rawId": b64url(credential_id),
        "type": "public-key",
        "response": {"clientDataJSON": b64url(data), "attestationObject": b64url(attestation), "transports": ["internal"]},
        "clientExtensionResults": {},
        "authenticatorAttachment": "platform",
    }
    return {"credential": credential, "key": state}


def get(options: dict, state: dict, origin: str, user_verified: bool, counter) -> dict:
    if options.get("rpId", state["rpId"]) != state["rpId"]:
        raise SystemExit("not this relying party's options")
    allowed = [c["id"] for c in options.get("allowCredentials") or []]
    if allowed and state["credentialId"] not in allowed:
        raise SystemExit("this credential is not among the allowed ones")
    state = dict(state, counter=state["counter"] + 1 if counter is None else counter)
    auth_data = hashlib.sha256(state["rpId"].encode()).digest() + bytes([UP | (UV if user_verified else 0)]) + struct.pack(">I", state["counter"])
    data = client_data("webauthn.get", options["challenge"], origin)
    key = serialization.load_pem_private_key(state["pem"].encode(), password=None)
    signature = key.sign(auth_data + hashlib.sha256(data).digest(), ec.ECDSA(hashes.SHA256()))
    credential = {
        "id": state["credentialId"],
        "rawId": state["credentialId"],
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(data),
            "authenticatorData": b64url(auth_data),
            "signature": b64url(signature),
            "userHandle": state["userHandle"],
        },
        "clientExtensionResults": {},
        "authenticatorAttachment": "platform",
    }
    return {"credential": credential, "key": state}


def main() -> None:
    command, origin = sys.argv[1], sys.argv[2]
    request = json.load(sys.stdin)
    if command == "create":
        answer = create(request["publicKey"], origin)
    else:
        answer = get(request["publicKey"], request["key"], origin, request.get("userVerified", True), request.get("counter"))
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
