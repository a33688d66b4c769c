#!/usr/bin/env bash
# Starts the test OpenID Connect provider (provider.mjs: oidc-provider with a sign-in page that
# lets in any e-mail address) unless this checkout's answers already. Source it: it exports
# OIDC_ISSUER, the issuer URL the server's SSO configuration and the tests use.
#
#   OIDC_PORT  default 2590     OIDC_LOG  default /tmp/enterprise-platform-oidc.log
#   OIDC_CLIENTS, OIDC_REDIRECT_URIS: read by provider.mjs, see there (only when it starts here)

oidc_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$oidc_here/../helpers.sh"
OIDC_PORT="${OIDC_PORT:-2590}" OIDC_LOG="${OIDC_LOG:-/tmp/enterprise-platform-oidc.log}"
# localhost, not 127.0.0.1: the issuer is compared as a string, and browsers reach it by this name.
export OIDC_ISSUER="http://localhost:$OIDC_PORT"
# npm ci starts from an empty node_modules every time: skipped when the lockfile is the one the
# installed tree came from.
oidc_lock_sum="$(sha256sum "$oidc_here/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$oidc_here/node_modules/.lock-sha256" 2>/dev/null)" != "$oidc_lock_sum" ]; then
  printf '\033[1m==> %s\033[0m\n' "oidc: installing oidc-provider into $oidc_here/node_modules" >&2
  (cd "$oidc_here" && npm ci --no-audit --no-fund --loglevel=error) \
    && echo "$oidc_lock_sum" >"$oidc_here/node_modules/.lock-sha256" \
    || { echo "oidc: npm ci failed" >&2; return 1 2>/dev/null || exit 1; }
fi
# A provider an earlier run of this checkout left answering is kept only if it runs this
# provider.mjs (its /health answers the file's hash); an older one is stopped and started again.
# Another checkout's is never used (helpers.sh: `may_reuse`).
if curl -fs "$OIDC_ISSUER/.well-known/openid-configuration" >/dev/null 2>&1 \
  && may_reuse oidc "$OIDC_PORT" "OpenID provider" scripts/oidc/provider.mjs \
  && [ "$(curl -fs "$OIDC_ISSUER/health" 2>/dev/null)" != "$(sha256sum "$oidc_here/provider.mjs" | cut -d' ' -f1)" ]; then
  printf '\033[1m==> %s\033[0m\n' "oidc: this checkout's provider at $OIDC_ISSUER runs older code: restarting it" >&2
  unset 'reused_services[-1]'
  kill "$(head -n 1 "$SERVICE_RECORDS/oidc-$OIDC_PORT")" 2>/dev/null || true
  for _ in $(seq 1 50); do curl -fs "$OIDC_ISSUER/health" >/dev/null 2>&1 || break; sleep 0.1; done
fi
if ! curl -fs "$OIDC_ISSUER/.well-known/openid-configuration" >/dev/null 2>&1; then
  OIDC_PORT="$OIDC_PORT" nohup node "$oidc_here/provider.mjs" >"$OIDC_LOG" 2>&1 &
  oidc_pid=$!
  started_service oidc "$OIDC_PORT" "$oidc_pid"
  for _ in $(seq 1 50); do
    curl -fs "$OIDC_ISSUER/.well-known/openid-configuration" >/dev/null 2>&1 && break
    # A bad OIDC_CLIENTS or a taken port ends it at once: no point waiting out the 10 s.
    kill -0 "$oidc_pid" 2>/dev/null || break
    sleep 0.2
  done
  curl -fs "$OIDC_ISSUER/.well-known/openid-configuration" >/dev/null || { echo "the OpenID provider did not start (see $OIDC_LOG)" >&2; return 1 2>/dev/null || exit 1; }
fi
