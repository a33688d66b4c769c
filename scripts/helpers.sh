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
