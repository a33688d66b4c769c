#!/usr/bin/env bash
# Proves the rules of the services a run starts beside the server (scripts/helpers.sh,
# `may_reuse`), with the real mail catcher on ports of its own: a run stops what it started when it
# ends, however it ends; a later run of this checkout reuses its own service and says so; one that
# another checkout started is refused by name; one a deleted checkout left behind, or one that
# kept no record, is stopped and replaced; anything else answering there is refused. `make test`
# runs it in its first stage (a few seconds).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/helpers.sh
export SERVICE_RECORDS="$(mktemp -d)"
smtp=2725 http=2780 url="http://127.0.0.1:2780/healthz"
answers() { curl -fs "$url" >/dev/null 2>&1; }
pid_of() { head -n 1 "$SERVICE_RECORDS/mail-$http"; }
owner_of() { sed -n 2p "$SERVICE_RECORDS/mail-$http"; }
# A run in a shell of its own: it starts the catcher (or reuses it), then ends as `end` says.
run() {
  local end="$1"
  bash -c '
    set -euo pipefail
    source scripts/helpers.sh
    trap stop_started_services EXIT
    MAIL_SMTP_PORT='"$smtp"' MAIL_HTTP_PORT='"$http"' MAIL_DIR="$(mktemp -d)/mail" source scripts/mail/start.sh
    printf "reused: %s\n" "${reused_services[@]}"
    '"$end"
}
! answers || die "port $http is taken: the check needs it free"
trap 'kill "$(pid_of 2>/dev/null)" 2>/dev/null || true; rm -rf "$SERVICE_RECORDS"' EXIT

# A run that fails stops its catcher; so does one stopped by a signal.
run 'answers() { curl -fs "'"$url"'" >/dev/null; }; answers; false' >/dev/null 2>&1 && die "the failing run succeeded"
! answers || die "a run that failed left its mail catcher running"
run 'kill -TERM $$; sleep 5' >/dev/null 2>&1 || true
! answers || die "a run ended by a signal left its mail catcher running"

# A catcher this checkout started earlier (recorded, still running) is reused, and the run says so.
run 'trap - EXIT' >/dev/null
answers || die "the catcher did not start"
first="$(pid_of)"
out="$(run 'trap - EXIT')"
[ "$(pid_of)" = "$first" ] || die "this checkout's own catcher was not reused"
grep -q "reused: mail catcher on port $http (this checkout's" <<<"$out" || die "the reuse was not said: $out"

# Another checkout's (its directory exists) is refused, by name, and left running.
printf '%s\n%s\n' "$first" / >"$SERVICE_RECORDS/mail-$http"
if out="$(run 'trap - EXIT' 2>&1)"; then die "another checkout's catcher was used: $out"; fi
grep -q "port $http answers the mail catcher of another checkout (/)" <<<"$out" || die "the refusal does not say whose it is: $out"
kill -0 "$first" 2>/dev/null || die "another checkout's catcher was stopped"

# A deleted checkout's is stopped and replaced by this checkout's own.
printf '%s\n%s\n' "$first" "$(mktemp -u)" >"$SERVICE_RECORDS/mail-$http"
run 'trap - EXIT' >/dev/null 2>&1
! kill -0 "$first" 2>/dev/null || die "the deleted checkout's catcher is still running"
answers && [ "$(owner_of)" = "$PWD" ] || die "no catcher of this checkout replaced it"

# One of this project's catchers that kept no record (started before runs kept them) is stopped
# and replaced.
replaced="$(pid_of)"
rm "$SERVICE_RECORDS/mail-$http"
run 'trap - EXIT' >/dev/null 2>&1
! kill -0 "$replaced" 2>/dev/null || die "a catcher without a record is still running"
answers && [ "$(owner_of)" = "$PWD" ] || die "no catcher of this checkout replaced the one without a record"
kill "$(pid_of)"
for _ in $(seq 1 50); do answers || break; sleep 0.1; done

# Something else answering there is refused, and left alone.
python3 -c '
import http.server, sys
class Yes(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"true")
    def log_message(self, *args): pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Yes).serve_forever()' "$http" &
stranger=$!
for _ in $(seq 1 50); do answers && break; sleep 0.1; done
rm -f "$SERVICE_RECORDS/mail-$http"
if out="$(run 'trap - EXIT' 2>&1)"; then kill "$stranger"; die "an unknown mail catcher was used: $out"; fi
kill -0 "$stranger" 2>/dev/null || die "the stranger on port $http was stopped"
kill "$stranger"
grep -q "port $http answers a mail catcher that this checkout did not start" <<<"$out" || die "the refusal is unclear: $out"
say "services: a run stops what it started, reuses only its own checkout's and says so"
