#!/usr/bin/env bash
# `make run`: services, frontend and server builds, migrations, a demo admin, then serve.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/services.sh

export DATABASE_URL="${DATABASE_URL:-$PG_BASE_URL/enterprise_platform}"
export STATIC_DIR="${STATIC_DIR:-$PWD/frontend/dist}"
export GEOIP_DATABASE="${GEOIP_DATABASE:-$PWD/backend/tests/data/GeoLite2-City-Test.mmdb}"
ADMIN_EMAIL="${ADMIN_EMAIL:-admin@example.com}"
export ADMIN_PASSWORD="${ADMIN_PASSWORD:-admin-demo-password}"
PROFILE="${PROFILE:-release}"

# A stable secret for this checkout, so restarting the server keeps everyone signed in.
mkdir -p .run
if [ -z "${JWT_SECRET:-}" ]; then
  [ -s .run/jwt_secret ] || (umask 077 && openssl rand -hex 32 > .run/jwt_secret)
  export JWT_SECRET="$(cat .run/jwt_secret)"
fi

say "building the web app"
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run build)

say "building the server ($PROFILE)"
cargo build --profile "$PROFILE" -p backend
dir=$([ "$PROFILE" = dev ] && echo debug || echo "$PROFILE")
bin="${CARGO_TARGET_DIR:-$PWD/target}/$dir/backend"

"$bin" migrate
"$bin" create-admin --if-none-exists --email "$ADMIN_EMAIL" --full-name "Platform Administrator"
[ "${SEED_DEMO:-1}" = 0 ] || "$bin" seed-demo

bind="${BIND_ADDR:-0.0.0.0:${PORT:-8080}}"
cat <<MSG

  Enterprise Platform is starting at http://localhost:${bind##*:}
  Platform administrator: $ADMIN_EMAIL / $ADMIN_PASSWORD
  (an administrator made earlier keeps the password it was given)
  Demo enterprises (SEED_DEMO=0 skips them), password demo-password for everyone:
    Acme Industries  ceo@acme.example, bruno@ (finance head), chloe@ (finance), david@ (operations head), emma@ (sales)
    Globex Services  ceo@globex.example, hugo@ (IT head), ines@ (IT), jade@ (HR head)
  What each shows:
    the admin        every enterprise, platform statistics, and the monitoring map of every session
    a CEO            six months of reports to review (one waits, one was rejected), the map of
                     their people signed in from three continents (one session flagged)
    bruno@, hugo@    their department's reports in every status and a budget spreadsheet
    any two people   the encrypted messenger (/messages) between colleagues
  API docs: http://localhost:${bind##*:}/api/docs

MSG
export BIND_ADDR="$bind"
exec "$bin" serve
