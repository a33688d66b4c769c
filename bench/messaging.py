"""The messenger at scale (issue 10). Run through bench/messaging.sh, which starts a release server.

prepare: an enterprise, a sender with keys, CONVERSATIONS groups (sender and one other) each with
         its first epoch, for wrk's sustained load (99 messages at most each: the epoch's limit is
         100); their ids go to BENCH_CONVERSATIONS.
measure: 1. SOCKETS sockets open (other users'), then MESSAGES messages one after another to a
            recipient whose socket is open: time from the POST to `message.created` on it;
         3. a conversation with TIMELINE messages (inserted with SQL): the newest page and a page
            from the middle (`before=`);
         4. the server's RSS.
"""

import asyncio
import base64
import json
import os
import sys
import time
import uuid

import psycopg
import websockets

from common import BASE, call, login, ms, pct, summary, timed

DB = os.environ["DATABASE_URL"]
PID = int(os.environ["BENCH_PID"])
IDS = os.environ["BENCH_CONVERSATIONS"]
SOCKETS = int(os.environ.get("SOCKETS", "1000"))
MESSAGES = int(os.environ.get("MESSAGES", "300"))
TIMELINE = int(os.environ.get("TIMELINE", "100000"))
CONVERSATIONS = int(os.environ.get("CONVERSATIONS", "600"))
READS = int(os.environ.get("READS", "200"))


def b64(n, first=None):
    raw = bytearray(os.urandom(n))
    if first is not None:
        raw[0] = first
    return base64.b64encode(bytes(raw)).decode()


def rss_mib():
    with open(f"/proc/{PID}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def person(ceo, email):
    _, user = call("POST", "/api/v1/users", ceo, {"fullName": email.split("@")[0].title(), "email": email, "password": "bench-password",
                                                  "role": "DepartmentUser"})
    token = login(email, "bench-password")
    call("POST", "/api/v1/messaging/keys", token, {"agreementKey": b64(65, 4), "signingKey": b64(65, 4)})
    return user["id"], token


def group_with_epoch(token, me, other):
    _, c = call("POST", "/api/v1/messaging/group-chats", token, {"name": "Bench", "participantIds": [other]})
    rotate(token, c["id"], 1, [me, other])
    return c["id"]


def rotate(token, conversation, epoch, members):
    keys = [{"userId": m, "keyVersion": 1, "wrappedKey": b64(113)} for m in members]
    call("POST", f"/api/v1/messaging/conversations/{conversation}/epochs", token, {"epoch": epoch, "creatorKeyVersion": 1, "keys": keys})


def message(conversation, epoch):
    return {"id": str(uuid.uuid4()), "conversationId": conversation, "epoch": epoch, "senderKeyVersion": 1,
            "iv": b64(12), "ciphertext": b64(200), "signature": b64(64)}


def prepare():
    admin = login(os.environ["BENCH_EMAIL"], os.environ["BENCH_PASSWORD"])
    call("POST", "/api/v1/enterprises", admin, {"name": "Bench Messages", "ceoFullName": "CEO", "ceoEmail": "ceo@messages.bench",
                                               "ceoPassword": "bench-password"})
    ceo = login("ceo@messages.bench", "bench-password")
    sender, token = person(ceo, "sender@messages.bench")
    other, _ = person(ceo, "other@messages.bench")
    with open(IDS, "w") as f:
        for _ in range(CONVERSATIONS):
            f.write(group_with_epoch(token, sender, other) + "\n")
    with open(IDS + ".token", "w") as f:
        f.write(token)
    print(f"## 1. prepared {CONVERSATIONS} conversations with their first epoch")


def measure():
    ceo = login("ceo@messages.bench", "bench-password")
    sender = login("sender@messages.bench", "bench-password")
    _, me = call("GET", "/api/v1/auth/me", sender)
    recipient, recipient_token = person(ceo, "recipient@messages.bench")
    bystander, _ = person(ceo, "bystander@messages.bench")
    asyncio.run(delivery(sender, me["id"], recipient, recipient_token, bystander))
    timeline(sender, me["id"], recipient)


async def delivery(sender, me, recipient, recipient_token, bystander):
    url = BASE.replace("http", "ws") + "/api/v1/ws"

    async def open_one(token):
        ws = await websockets.connect(url, max_queue=None)
        await ws.send(json.dumps({"type": "auth", "token": token}))
        assert json.loads(await ws.recv())["type"] == "ready"
        return ws

    others = [login("bystander@messages.bench", "bench-password") for _ in range(SOCKETS - 1)]
    before = rss_mib()
    opened = []
    for start in range(0, len(others), 100):
        opened += await asyncio.gather(*(open_one(t) for t in others[start:start + 100]))
    ws = await open_one(recipient_token)
    after = rss_mib()
    _, c = call("POST", "/api/v1/messaging/conversations", sender, {"participantId": recipient})
    conversation, epoch, sent_in_epoch = c["id"], 1, 0
    rotate(sender, conversation, epoch, [me, recipient])
    loop = asyncio.get_running_loop()
    times = []
    for _ in range(MESSAGES):
        if sent_in_epoch == 99:
            epoch, sent_in_epoch = epoch + 1, 0
            rotate(sender, conversation, epoch, [me, recipient])
        body = message(conversation, epoch)
        start = time.perf_counter()
        await loop.run_in_executor(None, lambda: call("POST", "/api/v1/messaging/messages", sender, body))
        while True:
            event = json.loads(await ws.recv())
            if event.get("type") == "message.created" and event.get("messageId") == body["id"]:
                break
        times.append(time.perf_counter() - start)
        sent_in_epoch += 1
    print(f"## 3. Delivery, {SOCKETS} sockets open ({MESSAGES} messages one after another, each from the POST to message.created on the recipient's socket)")
    print(f"   p50 {ms(pct(times, 50))}, p99 {ms(pct(times, 99))}, max {ms(max(times))}")
    print(f"   server RSS {before:.1f} MiB before the sockets, {after:.1f} MiB with them open, {rss_mib():.1f} MiB after the messages")
    for s in opened + [ws]:
        await s.close()


def timeline(sender, me, recipient):
    _, c = call("POST", "/api/v1/messaging/group-chats", sender, {"name": "Long history", "participantIds": [recipient]})
    rotate(sender, c["id"], 1, [me, recipient])
    with psycopg.connect(DB) as conn, conn.cursor() as cur:
        cur.execute("select id from enterprises where name = 'Bench Messages'")
        schema = "t_" + cur.fetchone()[0].hex
        cur.execute(f"insert into {schema}.messages (id, conversation_id, sender_id, epoch, sender_key_version, iv, ciphertext, signature, created_at) "
                    "select gen_random_uuid(), %s, %s, 1, 1, substring(sha256(i::text::bytea) from 1 for 12), "
                    " sha512(i::text::bytea) || sha512((i + 1)::text::bytea) || sha512((i + 2)::text::bytea), sha512((-i)::text::bytea), "
                    " now() - make_interval(secs => i) from generate_series(1, %s) i", (c["id"], me, TIMELINE))
        cur.execute(f"analyze {schema}.messages")
        cur.execute(f"select id from {schema}.messages where conversation_id = %s order by created_at desc, id desc offset %s limit 1",
                    (c["id"], TIMELINE // 2))
        middle = cur.fetchone()[0]
    path = f"/api/v1/messaging/conversations/{c['id']}/messages"
    print(f"## 4. The timeline with {TIMELINE} messages in one conversation ({READS} sequential requests each, 50 a page)")
    print(summary("newest page", timed(READS, lambda: call("GET", path, sender))))
    print(summary("a page from the middle (before=)", timed(READS, lambda: call("GET", f"{path}?before={middle}", sender))))
    print(summary("the conversation list (unread counts)", timed(READS, lambda: call("GET", "/api/v1/messaging/conversations", sender))))
    print(f"   server RSS at the end: {rss_mib():.1f} MiB")


if __name__ == "__main__":
    prepare() if sys.argv[1] == "prepare" else measure()
