#!/usr/bin/env bash
# Makes sure PostgreSQL and Redis answer on their usual local ports, starting them (or, as root,
# installing them from Debian's packages) when they do not. Source it: it exports DATABASE_URL's
# server part as PG_BASE_URL (no database name) and REDIS_URL for the caller.
#
#   PG_BASE_URL  default postgres://postgres@127.0.0.1:5432  (set it to use another server)
#   REDIS_URL    default redis://127.0.0.1:6379

set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/helpers.sh"

export PG_BASE_URL="${PG_BASE_URL:-postgres://postgres@127.0.0.1:5432}"
export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"

pg_local() { [[ "$PG_BASE_URL" == *@127.0.0.1:5432* || "$PG_BASE_URL" == *@localhost:5432* ]]; }

ensure_postgres() {
  command -v psql >/dev/null || apt_install postgresql-client
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || ! pg_local; then
    :
  else
    if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then apt_install postgresql; fi
    say "starting PostgreSQL"
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null \
      || runuser -u postgres -- pg_ctlcluster "$version" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
  fi
  if ! psql "$PG_BASE_URL/postgres" -Atqc 'select 1' >/dev/null 2>&1; then
    # A plain Debian install asks for a password over TCP: make our own role, through the
    # administrator's local socket, and use it.
    pg_local && is_root || die "cannot connect to PostgreSQL at $PG_BASE_URL; set PG_BASE_URL"
    say "creating PostgreSQL role 'platform' (TCP login with a password)"
    runuser -u postgres -- psql -q -c "do \$\$ begin
        if not exists (select from pg_roles where rolname = 'platform') then
          create role platform login createdb password 'platform';
        end if; end \$\$;"
    export PG_BASE_URL="postgres://platform:platform@127.0.0.1:5432"
    psql "$PG_BASE_URL/postgres" -Atqc 'select 1' >/dev/null || die "cannot connect to PostgreSQL"
  fi
}

ensure_redis() {
  command -v redis-cli >/dev/null || apt_install redis-tools
  if redis-cli -u "$REDIS_URL" ping 2>/dev/null | grep -q PONG; then return; fi
  [[ "$REDIS_URL" == redis://127.0.0.1:6379* || "$REDIS_URL" == redis://localhost:6379* ]] \
    || die "Redis at $REDIS_URL does not answer"
  command -v redis-server >/dev/null || apt_install redis-server
  say "starting Redis"
  mkdir -p /tmp/redis-platform
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir /tmp/redis-platform --logfile /tmp/redis-platform/redis.log
  for _ in $(seq 1 30); do redis-cli -u "$REDIS_URL" ping 2>/dev/null | grep -q PONG && return; sleep 0.5; done
  die "Redis did not start (see /tmp/redis-platform/redis.log)"
}

ensure_node() {
  command -v npm >/dev/null || apt_install nodejs npm
}

ensure_postgres
ensure_redis
ensure_node
