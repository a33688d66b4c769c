#!/usr/bin/env bash
# Starts the tests' DNS server (server.py: dnslib's, on loopback) unless this checkout's answers
# already (helpers.sh: `may_reuse`).
# Source it after scripts/mail/start.sh (whose venv has dnslib): it exports DNS_RESOLVER (the
# server's ip:port, which the server under test looks domain proofs up at) and DNS_ZONE_DIR (where
# a test publishes a TXT record: a file named after it, one string per line).
#
#   DNS_PORT  default 2553     DNS_ZONE_DIR  default /tmp/enterprise-platform-dns

dns_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$dns_here/../helpers.sh"
DNS_PORT="${DNS_PORT:-2553}"
export DNS_ZONE_DIR="${DNS_ZONE_DIR:-/tmp/enterprise-platform-dns}" DNS_RESOLVER="127.0.0.1:$DNS_PORT"
mkdir -p "$DNS_ZONE_DIR"
dns_answers() {
  "$TEST_PYTHON" -c "import dnslib,sys; q=dnslib.DNSRecord.question('probe.invalid','TXT'); q.send('127.0.0.1', int(sys.argv[1]), timeout=0.5)" "$DNS_PORT" >/dev/null 2>&1
}
if ! dns_answers || ! may_reuse dns "$DNS_PORT" "DNS server" scripts/dns/server.py; then
  nohup "$TEST_PYTHON" "$dns_here/server.py" --port "$DNS_PORT" --zone "$DNS_ZONE_DIR" >"$DNS_ZONE_DIR.log" 2>&1 &
  started_service dns "$DNS_PORT" $!
  for _ in $(seq 1 50); do
    dns_answers && break
    sleep 0.2
  done
  dns_answers || { echo "the DNS server did not start (see $DNS_ZONE_DIR.log)" >&2; return 1 2>/dev/null || exit 1; }
fi
