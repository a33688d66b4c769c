#!/usr/bin/env bash
# `make run`: services, frontend and server builds, migrations, a demo admin, then serve.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh

export DATABASE_URL="${DATABASE_URL:-$PG_BASE_URL/enterprise_platform}"
# This checkout's own Redis keys and events channel: another checkout's server on this machine
# (its own secret) would otherwise hear this one's events, and each would wait for the other at
# every sign-out.
export REDIS_PREFIX="${REDIS_PREFIX:-emp:$(printf '%s' "$PWD" | sha256sum | cut -c1-12):}"
# What this run starts beside the server (the mail catcher, the OpenID provider) stops with it.
trap stop_started_services EXIT
export STATIC_DIR="${STATIC_DIR:-$PWD/frontend/dist}"
export GEOIP_DATABASE="${GEOIP_DATABASE:-$PWD/backend/tests/data/GeoLite2-City-Test.mmdb}"
ADMIN_EMAIL="${ADMIN_EMAIL:-admin@example.com}"
export ADMIN_PASSWORD="${ADMIN_PASSWORD:-admin-demo-password}"
PROFILE="${PROFILE:-local}"

# E-mail: a local mail catcher (MailDev: a real SMTP server that keeps what it receives, with a page
# to read it) unless SMTP_URL names a mail server; links in e-mails point at this server.
if [ -z "${SMTP_URL:-}" ]; then
  source scripts/mail/start.sh
  mail_page="$MAIL_CATCHER_URL"
else
  mail_page="your mail server ($SMTP_URL)"
fi
export PUBLIC_URL="${PUBLIC_URL:-http://localhost:${PORT:-8080}}"

# Single sign-on: the demo's Globex signs in through a local OpenID provider (scripts/oidc, any
# address typed is let in), which the server reaches on this machine's loopback: so private
# networks are allowed here (they are not by default). SSO_DEMO=0 leaves both out.
if [ "${SEED_DEMO:-1}" != 0 ] && [ "${SSO_DEMO:-1}" != 0 ]; then
  source scripts/oidc/start.sh
  export DEMO_OIDC_ISSUER="$OIDC_ISSUER" WEBHOOK_ALLOW_PRIVATE_NETWORKS="${WEBHOOK_ALLOW_PRIVATE_NETWORKS:-true}"
fi

# A stable secret for this checkout, so restarting the server keeps everyone signed in, and a
# stable data key, so the secrets sealed at rest still open after a restart.
mkdir -p .run
if [ -z "${JWT_SECRET:-}" ]; then
  [ -s .run/jwt_secret ] || (umask 077 && openssl rand -hex 32 > .run/jwt_secret)
  export JWT_SECRET="$(cat .run/jwt_secret)"
fi
if [ -z "${DATA_ENCRYPTION_KEYS:-}" ]; then
  [ -s .run/data_encryption_keys ] || (umask 077 && echo "v1:$(openssl rand -base64 32)" > .run/data_encryption_keys)
  export DATA_ENCRYPTION_KEYS="$(cat .run/data_encryption_keys)"
fi

# The web app builds beside the server: cargo keeps both cores busy only part of the time.
say "building the web app and the server ($PROFILE profile), side by side"
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run build >/dev/null) &
web=$!
cargo build --profile "$PROFILE" -p backend
wait "$web" || die "the web app did not build (cd frontend && npm run build)"
dir=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
bin="${CARGO_TARGET_DIR:-$PWD/target}/$dir/backend"

"$bin" migrate
"$bin" create-admin --if-none-exists --email "$ADMIN_EMAIL" --full-name "Platform Administrator"
[ "${SEED_DEMO:-1}" = 0 ] || "$bin" seed-demo

bind="${BIND_ADDR:-0.0.0.0:${PORT:-8080}}"
port="${bind##*:}"
cat <<MSG

  ------------------------------------------------------------------------------------------
  Enterprise Platform: http://localhost:$port        API docs: http://localhost:$port/api/docs
  E-mails (invitations, resets, notifications): $mail_page

  Sign in as                    password              who
    $ADMIN_EMAIL$(printf '%*s' $((28 - ${#ADMIN_EMAIL})) '')$ADMIN_PASSWORD$(printf '%*s' $((22 - ${#ADMIN_PASSWORD})) '')platform administrator (an earlier one keeps its password)
MSG
if [ "${SEED_DEMO:-1}" != 0 ]; then
  cat <<MSG
    ceo@acme.example            demo-password         Acme Industries: CEO, six months of reports to review
    bruno@acme.example          demo-password         Acme: finance head, reports in every status, a spreadsheet
    chloe@acme.example          demo-password         Acme: finance
    david@acme.example          demo-password         Acme: operations head
    emma@acme.example           demo-password         Acme: sales and marketing
    ceo@globex.example          demo-password         Globex Services: CEO
    hugo@globex.example         demo-password         Globex: IT head
    ines@globex.example         demo-password         Globex: IT
    jade@globex.example         demo-password         Globex: HR head
    lea@acme.example            (invited)             Acme: finance, invited in French: accept from her e-mail
    anyone@globex.example       (single sign-on)      Globex: "Continue with single sign-on" at the demo
                                                      identity provider (${OIDC_ISSUER:-off: SSO_DEMO=0}) makes an IT account
  Any two people of one enterprise can try the encrypted messenger (/messages).
MSG
fi
for reused in "${reused_services[@]}"; do echo "  Reused: $reused"; done
echo "  Redis keys and events: prefix $REDIS_PREFIX (this checkout's)"
echo "  ------------------------------------------------------------------------------------------"
export BIND_ADDR="$bind"
# In the background, so that this shell's trap runs when the server ends: Ctrl-C (which a
# background job does not get) and a TERM are handed to it, and it shuts down gracefully.
"$bin" serve &
server=$!
trap 'kill -TERM "$server" 2>/dev/null || true' INT TERM
status=0
wait "$server" || status=$?
# A signal handed over interrupts the first wait: wait for the server's own end.
kill -0 "$server" 2>/dev/null && { wait "$server" || status=$?; }
exit "$status"
