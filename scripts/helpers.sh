#!/usr/bin/env bash
# The shell helpers every script of the project shares (scripts/services.sh, scripts/citus/):
# a heading, a fatal error, whether we are root, and installing Debian packages. Source it.

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
  is_root || die "$* is missing; install it (apt-get install $*) or run this as root"
  say "installing $* from Debian's packages"
  if [ -z "${_APT_UPDATED:-}" ]; then apt-get update -qq; _APT_UPDATED=1; export _APT_UPDATED; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
# Succeeds when a server's log (LOG_FORMAT=json) holds no ERROR line and no panic; prints them
# otherwise. The end-to-end run's own check (frontend/e2e/server-log.ts) reads its logs the same way.
server_log_clean() { ! grep -E '"level":"ERROR"|panicked at|^thread '"'"'' "$1"; }

# The services a run starts beside the server (the mail catcher, the OpenID provider, the DNS
# server) are its checkout's: each start writes a record (its checkout and pid) under
# $SERVICE_RECORDS, a run reuses only its own checkout's, and `stop_started_services` (an EXIT
# trap of scripts/run.sh and scripts/test.sh) stops what this run started.
SERVICE_RECORDS="${SERVICE_RECORDS:-${TMPDIR:-/tmp}/enterprise-platform-services}"
checkout_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
declare -p started_services >/dev/null 2>&1 || started_services=()
declare -p reused_services >/dev/null 2>&1 || reused_services=()

# service_owner NAME PORT: whose service answers there: "ours" (this checkout's, still running),
# "gone" (a checkout since deleted), or the other checkout's path; nothing without a record.
service_owner() {
  local record="$SERVICE_RECORDS/$1-$2" owner pid
  [ -s "$record" ] || return 0
  { read -r pid; read -r owner; } <"$record"
  kill -0 "$pid" 2>/dev/null || return 0
  if [ "$owner" = "$checkout_root" ]; then echo ours
  elif [ ! -d "$owner" ]; then echo gone
  else echo "$owner"; fi
}

# legacy_pid SCRIPT PORT: the pid of a process of this project's SCRIPT (maildev/bin/maildev…)
# serving PORT (in its command line, or OIDC_PORT in its environment) that left no record: one a
# run started before runs kept records.
legacy_pid() {
  local pid
  for pid in $(pgrep -f "$1" 2>/dev/null); do
    if tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE "(:|^)$2\$" \
      || tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "OIDC_PORT=$2"; then
      echo "$pid"; return 0
    fi
  done
  return 1
}

# may_reuse NAME PORT WHAT SCRIPT: called when something answers on PORT. Succeeds when it is
# this checkout's (and says so); stops one a deleted checkout left behind, or one of this
# project's SCRIPT that left no record (then fails: start ours); stops the run when it is another
# checkout's or unknown: no run talks to a service not its own.
may_reuse() {
  local owner pid; owner="$(service_owner "$1" "$2")"
  if [ -z "$owner" ] && pid="$(legacy_pid "$4" "$2")"; then
    say "$3 on port $2 was left by an earlier run that kept no record: stopping it"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    return 1
  fi
  case "$owner" in
    ours) reused_services+=("$3 on port $2 (this checkout's, started by an earlier run)"); return 0 ;;
    gone)
      say "$3 on port $2 belongs to a deleted checkout: stopping it"
      kill "$(head -n 1 "$SERVICE_RECORDS/$1-$2")" 2>/dev/null || true
      for _ in $(seq 1 50); do kill -0 "$(head -n 1 "$SERVICE_RECORDS/$1-$2")" 2>/dev/null || break; sleep 0.1; done
      return 1 ;;
    "") die "port $2 answers a $3 that this checkout did not start: stop it, or choose another port" ;;
    *) die "port $2 answers the $3 of another checkout ($owner): stop it there, or choose another port" ;;
  esac
}

# started_service NAME PORT PID: records a service this run started, to be stopped at its end.
started_service() {
  mkdir -p "$SERVICE_RECORDS"
  printf '%s\n%s\n' "$3" "$checkout_root" >"$SERVICE_RECORDS/$1-$2"
  started_services+=("$1-$2")
}

stop_started_services() {
  local name pid
  for name in "${started_services[@]}"; do
    pid="$(head -n 1 "$SERVICE_RECORDS/$name" 2>/dev/null)" || continue
    kill "$pid" 2>/dev/null || true
    rm -f "$SERVICE_RECORDS/$name"
  done
  started_services=()
}
