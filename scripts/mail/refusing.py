"""A real SMTP server (aiosmtpd) that refuses every recipient for good (550 5.1.1), as a mail
server refuses an address it does not have: the test of a bounce sends an invitation through it
and the platform must record the bounce. MailDev, the mail server that keeps what it receives,
cannot refuse anyone.

    python refusing.py      # listens on a free loopback port and prints it: "port 41234"
"""

import asyncio
import socket

from aiosmtpd.controller import Controller


class Refuse:
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        return "550 5.1.1 No such mailbox here"


def main():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # aiosmtpd checks its own answers before start() returns, within 5 s by default: a loaded
    # machine can take longer.
    controller = Controller(Refuse(), hostname="127.0.0.1", port=port, ready_timeout=60)
    controller.start()
    print(f"port {port}", flush=True)
    try:
        asyncio.run(asyncio.Event().wait())
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
