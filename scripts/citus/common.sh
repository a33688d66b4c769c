#!/usr/bin/env bash
# What build.sh, cluster.sh and stop.sh share: the version, where things go, and the project's
# shell helpers (scripts/helpers.sh: these run as scripts of their own, which do not see the
# caller's functions).
#
#   CITUS_VERSION     13.2.2 (what the project is tested with; docs/scaling.md)
#   CITUS_SOURCE_DIR  a folder with citus-$CITUS_VERSION.tar.gz and pg15-20-compat.patch (CI hands
#                     one over); else the tarball is downloaded from GitHub
#   CITUS_CACHE_DIR   default /var/cache/enterprise-platform/citus (the build, once per machine)
#   CITUS_DATA_DIR    default /var/cache/enterprise-platform/citus-data (the nodes' clusters)
#   CITUS_PORT        default 9700: the coordinator; the workers on the next two ports
#   CITUS_WORKER_PORTS default "$((CITUS_PORT + 1)) $((CITUS_PORT + 2))"

set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../helpers.sh"

citus_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CITUS_VERSION=13.2.2
CITUS_SOURCE_DIR="${CITUS_SOURCE_DIR:-}"
CITUS_CACHE_DIR="${CITUS_CACHE_DIR:-/var/cache/enterprise-platform/citus}"
CITUS_DATA_DIR="${CITUS_DATA_DIR:-/var/cache/enterprise-platform/citus-data}"
CITUS_PORT="${CITUS_PORT:-9700}"
CITUS_WORKER_PORTS="${CITUS_WORKER_PORTS:-$((CITUS_PORT + 1)) $((CITUS_PORT + 2))}"

# The PostgreSQL the extension is built for and the nodes run: Debian's, the major version
# pg_config reports (PostgreSQL 15 on this project's machines), its own binaries.
pg_major() {
  local version
  if command -v pg_config >/dev/null; then
    version="$(pg_config --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')"
  else
    version="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)"
  fi
  [ -n "$version" ] || die "no PostgreSQL here (pg_config is missing and /usr/lib/postgresql empty)"
  echo "$version"
}
PG_MAJOR="${CITUS_PG_MAJOR:-$(pg_major)}"
PG_BIN="/usr/lib/postgresql/$PG_MAJOR/bin"

# Runs a command as the postgres OS user when we are root (pg_ctl and initdb refuse root).
as_pg() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}
