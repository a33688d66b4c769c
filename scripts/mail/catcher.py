"""A mail catcher: a real SMTP server (aiosmtpd) that keeps every message it accepts as an .eml
file, and a small web page (and JSON) to read them.

    python catcher.py --smtp 127.0.0.1:1025 --http 127.0.0.1:1080 --dir /tmp/mail

- Messages land in --dir, one `<ns>.eml` file each (written whole, then renamed).
- A recipient whose address starts with `bounce` is refused for good (550 5.1.1), as a mail
  server refuses an address that does not exist: the platform must record the bounce.
- http://HOST/ lists the messages, newest first; /messages/<id> shows one (text and HTML, whose
  links open in a new tab);
  /api/messages?to=<address> answers JSON `[{id, from, to, subject, date, text, html, raw}]`;
  DELETE /api/messages empties the box.
"""

import argparse
import asyncio
import email
import email.policy
import html
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from aiosmtpd.controller import Controller


class Keeper:
    def __init__(self, directory):
        self.directory = directory

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address.lower().startswith("bounce"):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        name = f"{time.time_ns()}.eml"
        tmp = os.path.join(self.directory, f".{name}.tmp")
        with open(tmp, "wb") as f:
            f.write(envelope.original_content or envelope.content)
        os.rename(tmp, os.path.join(self.directory, name))
        return "250 Message accepted"


def read(directory, name):
    with open(os.path.join(directory, name), "rb") as f:
        raw = f.read()
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    text = msg.get_body(preferencelist=("plain",))
    body = msg.get_body(preferencelist=("html",))
    return {
        "id": name[:-4],
        "from": str(msg["From"] or ""),
        "to": str(msg["To"] or ""),
        "subject": str(msg["Subject"] or ""),
        "date": str(msg["Date"] or ""),
        "text": text.get_content() if text is not None else "",
        "html": body.get_content() if body is not None else "",
        "raw": raw.decode("utf-8", "replace"),
    }


def messages(directory, to=None):
    names = sorted((n for n in os.listdir(directory) if n.endswith(".eml")), reverse=True)
    found = [read(directory, n) for n in names]
    if to:
        found = [m for m in found if to.lower() in m["to"].lower()]
    return found


def page(title, body):
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title><style>body{font-family:sans-serif;margin:2rem;max-width:60rem}"
        "td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}"
        "pre{white-space:pre-wrap;background:#f6f6f6;padding:1rem}</style></head><body>"
        + body
        + "</body></html>"
    ).encode()


def handler_for(directory):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def send(self, status, kind, body):
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self):
            if urlparse(self.path).path != "/api/messages":
                return self.send(404, "text/plain", b"not found")
            for n in os.listdir(directory):
                if n.endswith(".eml"):
                    os.remove(os.path.join(directory, n))
            self.send(204, "text/plain", b"")

        def do_GET(self):
            url = urlparse(self.path)
            if url.path == "/api/messages":
                to = parse_qs(url.query).get("to", [None])[0]
                return self.send(200, "application/json", json.dumps(messages(directory, to)).encode())
            if url.path.startswith("/messages/"):
                name = os.path.basename(url.path) + ".eml"
                if not os.path.exists(os.path.join(directory, name)):
                    return self.send(404, "text/plain", b"not found")
                m = read(directory, name)
                body = (
                    f"<p><a href='/'>All messages</a></p><h1>{html.escape(m['subject'])}</h1>"
                    f"<p>From {html.escape(m['from'])} to {html.escape(m['to'])}, {html.escape(m['date'])}</p>"
                    # No script runs in the message; its links open in a tab of their own, outside
                    # the frame (the app refuses to be framed: frame-ancestors 'none').
                    "<h2>HTML</h2><iframe title='The message' sandbox='allow-popups allow-popups-to-escape-sandbox'"
                    " style='width:100%;height:32rem;border:1px solid #ccc' srcdoc='"
                    + html.escape("<base target='_blank'>" + m["html"], quote=True)
                    + "'></iframe><h2>Text</h2><pre>"
                    + html.escape(m["text"])
                    + "</pre>"
                )
                return self.send(200, "text/html; charset=utf-8", page(m["subject"], body))
            if url.path == "/":
                rows = "".join(
                    f"<tr><td>{html.escape(m['date'])}</td><td>{html.escape(m['to'])}</td>"
                    f"<td><a href='/messages/{m['id']}'>{html.escape(m['subject'])}</a></td></tr>"
                    for m in messages(directory)
                )
                body = (
                    "<h1>Mail caught by the platform's catcher</h1>"
                    + ("<table><tr><th>Date</th><th>To</th><th>Subject</th></tr>" + rows + "</table>" if rows else "<p>No e-mail yet.</p>")
                )
                return self.send(200, "text/html; charset=utf-8", page("Mail", body))
            self.send(404, "text/plain", b"not found")

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--smtp", default="127.0.0.1:1025")
    parser.add_argument("--http", default="127.0.0.1:1080")
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    smtp_host, smtp_port = args.smtp.rsplit(":", 1)
    http_host, http_port = args.http.rsplit(":", 1)
    # aiosmtpd checks its own server answers before start() returns, within 5 s by default: a
    # loaded machine can take longer.
    controller = Controller(Keeper(args.dir), hostname=smtp_host, port=int(smtp_port), ready_timeout=60)
    controller.start()
    server = ThreadingHTTPServer((http_host, int(http_port)), handler_for(args.dir))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"mail catcher: SMTP on {args.smtp}, messages at http://{args.http}/", flush=True)
    try:
        asyncio.run(asyncio.Event().wait())
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
