"""The tests' DNS server (dnslib's, on loopback): answers TXT queries from a folder, where a
test publishes a record by writing a file named after it.

    ZONE/_enterprise-platform-challenge.acme.example   one TXT string per line

Any other name, or another type, is NXDOMAIN. The folder is read at every query, so a record
written (or deleted) by a test is seen at once. Usage: server.py --port PORT --zone DIR
"""

import argparse
import os
import time

from dnslib import QTYPE, RCODE, RR, TXT
from dnslib.server import BaseResolver, DNSLogger, DNSServer


class FolderResolver(BaseResolver):
    def __init__(self, zone):
        self.zone = zone

    def resolve(self, request, handler):
        reply = request.reply()
        name = str(request.q.qname).rstrip(".").lower()
        path = os.path.join(self.zone, name)
        # A name is a file of the folder, never a path elsewhere.
        if request.q.qtype == QTYPE.TXT and "/" not in name and os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                for line in f.read().splitlines():
                    if line:
                        reply.add_answer(RR(request.q.qname, QTYPE.TXT, rdata=TXT(line), ttl=0))
        if not reply.rr:
            reply.header.rcode = RCODE.NXDOMAIN
        return reply


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--zone", required=True)
    args = parser.parse_args()
    os.makedirs(args.zone, exist_ok=True)
    resolver = FolderResolver(args.zone)
    logger = DNSLogger("-request,-reply,-truncated,-data")
    servers = [DNSServer(resolver, port=args.port, address="127.0.0.1", logger=logger, tcp=tcp) for tcp in (False, True)]
    for server in servers:
        server.start_thread()
    print(f"dns: answering on 127.0.0.1:{args.port} (udp and tcp) from {args.zone}", flush=True)
    while all(s.isAlive() for s in servers):
        time.sleep(1)


if __name__ == "__main__":
    main()
