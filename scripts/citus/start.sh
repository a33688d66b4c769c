#!/usr/bin/env bash
# Citus for the tests: builds Citus 13.2.2 into Debian's PostgreSQL once per machine (build.sh,
# cached in /var/cache/enterprise-platform/citus), starts a coordinator and two workers on
# loopback unless they answer already, prepares them for the API tests (cluster.sh; docs/scaling.md,
# "Running the API tests against a cluster") and drops the test databases an earlier run left.
# Source it after scripts/services.sh. It exports
#
#   CITUS_DATABASE_URL  the coordinator's postgres database (sslmode=disable): the tests' DATABASE_URL
#   CITUS_BASE_URL      the coordinator, without a database
#
# and returns 0; or, when there is no Citus source to build from (neither $CITUS_SOURCE_DIR nor
# GitHub), prints "CITUS STAGE SKIPPED", exports
# nothing and returns 0: test `[ -n "${CITUS_DATABASE_URL:-}" ]` before the stage. A failed build or
# start returns 1. `bash scripts/citus/stop.sh` stops the nodes.
#
#   CITUS_PORT  default 9700 (the workers on the next two ports); more settings in common.sh.
#   CITUS_DATABASE_URL set already: that cluster is used as it is (nothing built or started).

citus_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [ -n "${CITUS_DATABASE_URL:-}" ]; then
  printf '\033[1m==> %s\033[0m\n' "citus: using the cluster at $CITUS_DATABASE_URL" >&2
else
  citus_status=0
  bash "$citus_here/build.sh" || citus_status=$?
  if [ "$citus_status" = 3 ]; then
    printf '\033[1;31m%s\033[0m\n' "CITUS STAGE SKIPPED: no Citus source (set CITUS_SOURCE_DIR to a folder with citus-13.2.2.tar.gz, or let GitHub be reached)" >&2
  elif [ "$citus_status" != 0 ]; then
    printf '\033[1;31m%s\033[0m\n' "CITUS STAGE FAILED: Citus did not build (see above)" >&2
    return 1 2>/dev/null || exit 1
  elif bash "$citus_here/cluster.sh" start && bash "$citus_here/cluster.sh" drop-databases; then
    eval "$(bash "$citus_here/cluster.sh" env)"
  else
    printf '\033[1;31m%s\033[0m\n' "CITUS STAGE FAILED: the cluster did not start (see above; logs in /var/cache/enterprise-platform/citus-data)" >&2
    return 1 2>/dev/null || exit 1
  fi
  unset citus_status
fi
