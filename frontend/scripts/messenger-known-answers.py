#!/usr/bin/env python3
"""
Known-answer vectors for the messenger's cryptography (docs/messenger-crypto.md), computed
independently of the app: Python's `cryptography` package and the standard library, with RFC 9180
(HPKE) written out below from the RFC, not from @hpke/core or src/lib/crypto.

It prints src/lib/crypto/known-answer-vectors.ts, which the known-answer tests import
(src/lib/crypto/known-answers.test.ts, src/features/messages/engine/known-answers.test.ts):

    pip install cryptography   # 44 or later (deterministic ECDSA, RFC 6979)
    python3 scripts/messenger-known-answers.py > src/lib/crypto/known-answer-vectors.ts
    npx prettier --write src/lib/crypto/known-answer-vectors.ts

The output is the same on every run (fixed keys, IVs, salts; deterministic ECDSA). Regenerate it
only for a deliberate change of format, and then say so: a test that fails against these vectors
means the bytes the app writes or reads have changed.
"""

import base64
import hashlib
import hmac
import json
import unicodedata

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def sha256(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def fixed(label: str, n: int) -> bytes:
    """Fixed 'random' bytes for the vectors: the first n bytes of SHA-256(label)."""
    return sha256(label)[:n]


# --- keys -----------------------------------------------------------------------------------


def private_key(label: str) -> ec.EllipticCurvePrivateKey:
    d = int.from_bytes(sha256(label), 'big')
    assert 0 < d < P256_ORDER
    return ec.derive_private_key(d, ec.SECP256R1())


def point(key) -> bytes:
    public = key.public_key() if isinstance(key, ec.EllipticCurvePrivateKey) else key
    return public.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


def pkcs8(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())


def dh(private: ec.EllipticCurvePrivateKey, public) -> bytes:
    return private.exchange(ec.ECDH(), public)  # the x coordinate, 32 bytes


# --- the app's framing: UTF-8 JSON arrays (encoding.ts `context`) -----------------------------


def json_text(value) -> str:
    # JSON.stringify: no spaces, non-ASCII as is.
    return json.dumps(value, separators=(',', ':'), ensure_ascii=False)


def context(*parts) -> bytes:
    return json_text(['emp-messenger', *parts]).encode('utf-8')


# --- HPKE, RFC 9180 ---------------------------------------------------------------------------


def hkdf_extract(salt: bytes, ikm: bytes) -> bytes:
    return hmac.new(salt or bytes(32), ikm, hashlib.sha256).digest()


def hkdf_expand(prk: bytes, info: bytes, length: int) -> bytes:
    out, block, counter = b'', b'', 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def labeled_extract(suite_id: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    return hkdf_extract(salt, b'HPKE-v1' + suite_id + label + ikm)


def labeled_expand(suite_id: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    return hkdf_expand(prk, length.to_bytes(2, 'big') + b'HPKE-v1' + suite_id + label + info, length)


KEM_P256 = 0x0010
KDF_HKDF_SHA256 = 0x0001
AEAD_AES_128_GCM = 0x0001
AEAD_AES_256_GCM = 0x0002
KEM_SUITE = b'KEM' + KEM_P256.to_bytes(2, 'big')
MODE_BASE = 0x00
MODE_AUTH = 0x02


def derive_key_pair(ikm: bytes) -> ec.EllipticCurvePrivateKey:
    """RFC 9180 7.1.3, P-256 (only for checking this script against the RFC's own vectors)."""
    prk = labeled_extract(KEM_SUITE, b'', b'dkp_prk', ikm)
    for counter in range(256):
        sk = int.from_bytes(labeled_expand(KEM_SUITE, prk, b'candidate', bytes([counter]), 32), 'big')
        if 0 < sk < P256_ORDER:
            return ec.derive_private_key(sk, ec.SECP256R1())
    raise ValueError('no key')


def encap(recipient_public, sender, ephemeral: ec.EllipticCurvePrivateKey):
    """RFC 9180 4.1 Encap (sender None) or AuthEncap: (shared_secret, enc)."""
    enc = point(ephemeral)
    dh_all = dh(ephemeral, recipient_public) + (dh(sender, recipient_public) if sender else b'')
    kem_context = enc + point(recipient_public) + (point(sender) if sender else b'')
    eae_prk = labeled_extract(KEM_SUITE, b'', b'eae_prk', dh_all)
    return labeled_expand(KEM_SUITE, eae_prk, b'shared_secret', kem_context, 32), enc


def key_schedule(mode: int, aead_id: int, shared_secret: bytes, info: bytes):
    """RFC 9180 5.1, without a PSK: (key, base_nonce)."""
    suite = b'HPKE' + KEM_P256.to_bytes(2, 'big') + KDF_HKDF_SHA256.to_bytes(2, 'big') + aead_id.to_bytes(2, 'big')
    nk = 16 if aead_id == AEAD_AES_128_GCM else 32
    psk_id_hash = labeled_extract(suite, b'', b'psk_id_hash', b'')
    info_hash = labeled_extract(suite, b'', b'info_hash', info)
    ks_context = bytes([mode]) + psk_id_hash + info_hash
    secret = labeled_extract(suite, shared_secret, b'secret', b'')
    return labeled_expand(suite, secret, b'key', ks_context, nk), labeled_expand(suite, secret, b'base_nonce', ks_context, 12)


def seal(aead_id, recipient_public, sender, ephemeral, info: bytes, aad: bytes, pt: bytes):
    """SealBase (sender None) or SealAuth, first message of the context (sequence 0: the nonce is base_nonce)."""
    shared_secret, enc = encap(recipient_public, sender, ephemeral)
    key, nonce = key_schedule(MODE_AUTH if sender else MODE_BASE, aead_id, shared_secret, info)
    return enc, AESGCM(key).encrypt(nonce, pt, aad)


def check_against_rfc9180():
    """This HPKE code reproduces RFC 9180 A.3.1 (base) and A.3.3 (auth): DHKEM(P-256), HKDF-SHA256, AES-128-GCM."""
    h = bytes.fromhex
    info = h('4f6465206f6e2061204772656369616e2055726e')
    pt = h('4265617574792069732074727574682c20747275746820626561757479')
    aad = h('436f756e742d30')

    recipient = derive_key_pair(h('668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550'))
    ephemeral = derive_key_pair(h('4270e54ffd08d79d5928020af4686d8f6b7d35dbe470265f1f5aa22816ce860e'))
    assert point(recipient).hex() == (
        '04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0'
    )
    enc, ct = seal(AEAD_AES_128_GCM, recipient.public_key(), None, ephemeral, info, aad, pt)
    assert enc.hex() == (
        '04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c403ce65c9bfcb9382657222d18c4'
    ), enc.hex()
    assert ct.hex() == '5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f39513434', ct.hex()

    recipient = derive_key_pair(h('7bc93bde8890d1fb55220e7f3b0c107ae7e6eda35ca4040bb6651284bf0747ee'))
    sender = derive_key_pair(h('874baa0dcf93595a24a45a7f042e0d22d368747daaa7e19f80a802af19204ba8'))
    ephemeral = derive_key_pair(h('798d82a8d9ea19dbc7f2c6dfa54e8a6706f7cdc119db0813dacf8440ab37c857'))
    assert point(sender).hex() == (
        '04a817a0902bf28e036d66add5d544cc3a0457eab150f104285df1e293b5c10eef8651213e43d9cd9086c80b309df22cf37609f58c1127f7607e85f210b2804f73'
    )
    _, ct = seal(AEAD_AES_128_GCM, recipient.public_key(), sender, ephemeral, info, aad, pt)
    assert ct.hex() == '82ffc8c44760db691a07c5627e5fc2c08e7a86979ee79b494a17cc3405446ac2bdb8f265db4a099ed3289ffe19', ct.hex()


# --- the app's constructions ------------------------------------------------------------------


def epoch_info(conversation_id: str, epoch: int, user_id: str, key_version: int) -> bytes:
    return context('epoch-key', 1, conversation_id, epoch, user_id, key_version)


def wrap_epoch_key(key: bytes, info: bytes, recipient_public, creator, ephemeral) -> bytes:
    """HPKE auth mode, AES-256-GCM, no additional data: enc (65 bytes) then the sealed key (48)."""
    enc, ct = seal(AEAD_AES_256_GCM, recipient_public, creator, ephemeral, info, b'', key)
    return enc + ct


def message_aad(m) -> bytes:
    return context('message', 1, m['conversationId'], m['epoch'], m['messageId'], m['senderId'], m['senderKeyVersion'])


def message_signed(m, iv_b64: str, ct_b64: str) -> bytes:
    return context(
        'message-signature', 1, m['conversationId'], m['epoch'], m['messageId'], m['senderId'], m['senderKeyVersion'], iv_b64, ct_b64
    )


def raw_signature(signing: ec.EllipticCurvePrivateKey, data: bytes) -> bytes:
    """ECDSA P-256/SHA-256 (RFC 6979, so the vectors are stable) as WebCrypto writes it: r || s."""
    r, s = decode_dss_signature(signing.sign(data, ec.ECDSA(hashes.SHA256(), deterministic_signing=True)))
    return r.to_bytes(32, 'big') + s.to_bytes(32, 'big')


def seal_message(text: str, m, epoch_key: bytes, iv: bytes, signing=None):
    ct = AESGCM(epoch_key).encrypt(iv, json_text({'text': text}).encode('utf-8'), message_aad(m))
    iv_b64, ct_b64 = b64(iv), b64(ct)
    signed = message_signed(m, iv_b64, ct_b64)
    out = {'iv': iv_b64, 'ciphertext': ct_b64, 'aad': message_aad(m).decode(), 'signed': signed.decode()}
    if signing is not None:
        out['signature'] = b64(raw_signature(signing, signed))
    return out


BACKUP_ITERATIONS = 600_000


def seal_backup(passphrase: str, salt: bytes, iv: bytes, contents) -> dict:
    key = hashlib.pbkdf2_hmac('sha256', unicodedata.normalize('NFKC', passphrase).encode('utf-8'), salt, BACKUP_ITERATIONS, 32)
    aad = context('key-backup', 1, contents['userId'])
    ct = AESGCM(key).encrypt(iv, json_text(contents).encode('utf-8'), aad)
    return {'salt': b64(salt), 'iterations': BACKUP_ITERATIONS, 'iv': b64(iv), 'ciphertext': b64(ct)}


def safety_half(user_id: str, agreement_point: bytes, signing_point: bytes) -> str:
    data = context('safety-number', 1, user_id) + agreement_point + signing_point
    digest = hashlib.sha512(data).digest()
    for _ in range(1, 5200):
        digest = hashlib.sha512(digest + data).digest()
    return ''.join(str(int.from_bytes(digest[i * 5 : i * 5 + 5], 'big') % 100000).zfill(5) for i in range(6))


def fingerprint(public_keys) -> str:
    return hashlib.sha256(f"{public_keys['agreementKey']}|{public_keys['signingKey']}".encode()).digest()[:16].hex()


# --- the vectors ------------------------------------------------------------------------------


def main():
    check_against_rfc9180()

    conversation = '0190f3c2-0000-7000-8000-00000000c0c1'
    alice_id = '0190f3c2-0000-7000-8000-00000000a11c'
    bob_id = '0190f3c2-0000-7000-8000-000000000b0b'
    # Distinct numbers, so that two fields swapped show.
    alice_version, bob_version, epoch = 2, 3, 7

    def user(name):
        agreement, signing = private_key(f'kat {name} agreement'), private_key(f'kat {name} signing')
        return {
            'agreement': agreement,
            'signing': signing,
            'exported': {'agreement': b64(pkcs8(agreement)), 'signing': b64(pkcs8(signing))},
            'publicKeys': {'agreementKey': b64(point(agreement)), 'signingKey': b64(point(signing))},
        }

    alice, bob = user('alice'), user('bob')
    ephemeral = private_key('kat hpke ephemeral')

    # Epoch 7, made by Alice (key version 2), for Bob (3) and herself (2).
    epoch_key = fixed('kat epoch 7 key', 32)
    info_bob = epoch_info(conversation, epoch, bob_id, bob_version)
    wrapped_bob = wrap_epoch_key(epoch_key, info_bob, bob['agreement'].public_key(), alice['agreement'], ephemeral)
    wrapped_alice = wrap_epoch_key(
        epoch_key, epoch_info(conversation, epoch, alice_id, alice_version), alice['agreement'].public_key(), alice['agreement'], ephemeral
    )

    # Alice's message in epoch 7, signed by her.
    hello_context = {'conversationId': conversation, 'epoch': epoch, 'messageId': '0190f3c2-0000-7000-8000-0000000e55a1', 'senderId': alice_id, 'senderKeyVersion': alice_version}
    hello_text = 'Bonjour Bob, on se voit à 14 h ? 👋'
    hello = seal_message(hello_text, hello_context, epoch_key, fixed('kat hello iv', 12), alice['signing'])

    # Bob's reply in epoch 7 (the app signs it: randomized ECDSA, so only checked, not pinned).
    reply_context = {'conversationId': conversation, 'epoch': epoch, 'messageId': '0190f3c2-0000-7000-8000-0000000e55a2', 'senderId': bob_id, 'senderKeyVersion': bob_version}
    reply_text = 'Oui, à tout à l’heure.'
    reply = seal_message(reply_text, reply_context, epoch_key, fixed('kat reply iv', 12))

    # Epoch 8, started by Bob (3) for Alice (2) and himself, and his first message in it.
    next_key = fixed('kat epoch 8 key', 32)
    next_wrapped_alice = wrap_epoch_key(
        next_key, epoch_info(conversation, epoch + 1, alice_id, alice_version), alice['agreement'].public_key(), bob['agreement'], ephemeral
    )
    next_wrapped_bob = wrap_epoch_key(
        next_key, epoch_info(conversation, epoch + 1, bob_id, bob_version), bob['agreement'].public_key(), bob['agreement'], ephemeral
    )
    next_context = {'conversationId': conversation, 'epoch': epoch + 1, 'messageId': '0190f3c2-0000-7000-8000-0000000e55a3', 'senderId': bob_id, 'senderKeyVersion': bob_version}
    next_text = 'Nouvelle époque.'
    next_message = seal_message(next_text, next_context, next_key, fixed('kat epoch 8 iv', 12))

    # Bob's key backup: key version 3. The passphrase as typed; NFKC makes it 'Correct horse five étapes'.
    passphrase = 'Ｃorrect horse ﬁve e\u0301tapes'
    backup_contents = {'userId': bob_id, 'versions': [{'version': bob_version, 'exported': bob['exported'], 'publicKeys': bob['publicKeys']}]}
    backup = seal_backup(passphrase, fixed('kat backup salt', 16), fixed('kat backup iv', 12), backup_contents)

    first, second = sorted([(alice_id, alice), (bob_id, bob)], key=lambda entry: entry[0])
    safety = ''.join(
        safety_half(uid, base64.b64decode(u['publicKeys']['agreementKey']), base64.b64decode(u['publicKeys']['signingKey'])) for uid, u in (first, second)
    )

    def keys_of(u, version):
        return {'version': version, 'exported': u['exported'], 'publicKeys': u['publicKeys'], 'fingerprint': fingerprint(u['publicKeys'])}

    vectors = {
        'conversationId': conversation,
        'alice': {'id': alice_id, **keys_of(alice, alice_version)},
        'bob': {'id': bob_id, **keys_of(bob, bob_version)},
        'ephemeral': {'pkcs8': b64(pkcs8(ephemeral)), 'point': b64(point(ephemeral))},
        'epoch7': {
            'epoch': epoch,
            'keyHex': epoch_key.hex(),
            'infoForBob': info_bob.decode(),
            'infoForBobHex': info_bob.hex(),
            'wrappedForBob': b64(wrapped_bob),
            'wrappedForAlice': b64(wrapped_alice),
        },
        'hello': {**hello_context, 'text': hello_text, **hello},
        'reply': {**reply_context, 'text': reply_text, **reply},
        'epoch8': {
            'epoch': epoch + 1,
            'keyHex': next_key.hex(),
            'wrappedForAlice': b64(next_wrapped_alice),
            'wrappedForBob': b64(next_wrapped_bob),
            'message': {**next_context, 'text': next_text, **next_message},
        },
        'backup': {
            'passphrase': passphrase,
            'normalizedPassphrase': unicodedata.normalize('NFKC', passphrase),
            'saltHex': fixed('kat backup salt', 16).hex(),
            'ivHex': fixed('kat backup iv', 12).hex(),
            'contents': backup_contents,
            'aad': context('key-backup', 1, bob_id).decode(),
            'sealed': backup,
        },
        'safetyNumber': safety,
    }

    print('/**')
    print(' * Known-answer vectors for the messenger\'s cryptography, written by')
    print(' * scripts/messenger-known-answers.py: an independent implementation (Python `cryptography`,')
    print(' * RFC 9180 from the RFC) of docs/messenger-crypto.md, checked there against RFC 9180 A.3.1 and A.3.3.')
    print(' * Test data only: do not edit by hand, and do not compute anything here from src/lib/crypto.')
    print(' */')
    print(f'export const KAT = {json.dumps(vectors, ensure_ascii=False, indent=2)};')


if __name__ == '__main__':
    main()
