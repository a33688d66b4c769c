#!/usr/bin/env bash
# The test cluster: a coordinator ($CITUS_PORT) and two workers (the next two ports), each an
# initdb cluster of Debian's PostgreSQL under $CITUS_DATA_DIR/pg<major>/, on 127.0.0.1 only,
# trust authentication, no TLS. Settings: see common.sh.
#
#   cluster.sh start            start what is not running (nodes that answer already are reused),
#                               then prepare the cluster for the API tests (docs/scaling.md,
#                               "Running the API tests against a cluster") unless it is prepared
#   cluster.sh stop             stop the nodes
#   cluster.sh status           which nodes answer, and the workers the coordinator knows
#   cluster.sh drop-databases [LIKE-PATTERN...]
#                               drop, with (force), the databases matching the patterns (default
#                               'api\_test\_%' and '\_sqlx\_test\_%', what the API tests and
#                               sqlx::test make) on every node
#   cluster.sh reset            stop the nodes and delete their data (the next start makes them anew)
#   cluster.sh env              print the exports start.sh makes
#
# Needs Citus installed (build.sh).
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

data="$CITUS_DATA_DIR/pg$PG_MAJOR"
read -r -a workers <<<"$CITUS_WORKER_PORTS"
ports=("$CITUS_PORT" "${workers[@]}")
node_name() { if [ "$1" = "$CITUS_PORT" ]; then echo coordinator; else echo "worker-$1"; fi; }
# What the prepared cluster carries, as the comment on template1 of every node: set last, so a
# preparation stopped halfway is done again.
ready_mark="enterprise-platform citus test cluster, prepared"

psql_node() { # PORT DATABASE psql-arguments...
  local port="$1" db="$2"
  shift 2
  psql -X -q -A -t -v ON_ERROR_STOP=1 "host=127.0.0.1 port=$port user=postgres dbname=$db sslmode=disable connect_timeout=5" "$@"
}
answers() { "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -t 2; }
# Polls until the node answers, for at most $2 seconds.
wait_answers() {
  local port="$1" deadline=$((SECONDS + $2))
  until answers "$port"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

write_conf() { # PORT DIR
  local port="$1" dir="$2"
  {
    echo "# Written by scripts/citus/cluster.sh at every start: edit that, not this."
    echo "listen_addresses = '127.0.0.1'"
    echo "port = $port"
    echo "unix_socket_directories = '$data/run'"
    echo "shared_preload_libraries = 'citus'"
    # Six API tests at a time, five connections each, plus Citus's own between the nodes.
    echo "max_connections = 300"
    echo "max_worker_processes = 64        # a Citus maintenance daemon per database"
    echo "max_prepared_transactions = 200  # two-phase commit over several nodes"
    # A throwaway test cluster: speed over durability.
    echo "fsync = off"
    echo "synchronous_commit = off"
    echo "full_page_writes = off"
    # No TLS: the clients say sslmode=disable, and so do the nodes to each other. Citus's default
    # (sslmode=require) would turn ssl on with a self-signed certificate at CREATE EXTENSION.
    echo "ssl = off"
    echo "citus.node_conninfo = 'sslmode=disable'"
    echo "log_line_prefix = '%m [%p] %q%d '"
    echo "log_min_error_statement = error"
    if [ "$port" = "$CITUS_PORT" ]; then
      # Each test's CREATE DATABASE on the coordinator makes the database on the workers too.
      echo "citus.enable_create_database_propagation = on"
    fi
    # citus.enable_schema_based_sharding is not set: the server turns it on per transaction.
  } >"$dir/citus-test.conf"
  chown postgres:postgres "$dir/citus-test.conf" 2>/dev/null || true
}

start_node() { # PORT
  local port="$1" name dir log
  name="$(node_name "$port")" dir="$data/$(node_name "$port")" log="$data/$name.log"
  if answers "$port"; then
    if psql_node "$port" postgres -c 'show shared_preload_libraries' 2>/dev/null | grep -qw citus; then
      return 0
    fi
    die "citus: something answers on 127.0.0.1:$port that is not a Citus node; stop it or set CITUS_PORT"
  fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    say "citus: initdb $name ($dir)"
    rm -rf "$dir"
    mkdir -p "$dir"
    is_root && chown postgres:postgres "$dir"
    as_pg "$PG_BIN/initdb" -D "$dir" -U postgres -A trust -E UTF8 --locale=C.UTF-8 --no-sync >"$data/$name.initdb.txt" 2>&1 \
      || { cat "$data/$name.initdb.txt" >&2; die "citus: initdb of $name failed"; }
    echo "include 'citus-test.conf'" >>"$dir/postgresql.conf"
  fi
  write_conf "$port" "$dir"
  say "citus: starting $name on 127.0.0.1:$port"
  # -w waits for the server to accept connections (up to -t seconds); a stale postmaster.pid from
  # a crash is noticed and ignored by the server itself.
  if ! as_pg "$PG_BIN/pg_ctl" -D "$dir" -l "$log" -w -t 120 start >/dev/null; then
    tail -n 20 "$log" >&2
    die "citus: $name did not start (log: $log)"
  fi
  wait_answers "$port" 60 || { tail -n 20 "$log" >&2; die "citus: $name does not answer (log: $log)"; }
}

prepared() {
  local port
  for port in "${ports[@]}"; do
    [ "$(psql_node "$port" postgres -c "select datallowconn::text || ' ' || coalesce(shobj_description(oid, 'pg_database'), '') from pg_database where datname = 'template1'" 2>/dev/null)" = "false $ready_mark" ] || return 1
    [ "$(psql_node "$port" postgres -c "select count(*) from pg_extension where extname = 'citus'" 2>/dev/null)" = 1 ] || return 1
  done
  [ "$(psql_node "$CITUS_PORT" postgres -c "select count(*) from pg_dist_node where noderole = 'primary' and isactive and nodeport <> $CITUS_PORT" 2>/dev/null)" = "${#workers[@]}" ]
}

# docs/scaling.md, "Running the API tests against a cluster": the extension in template1 (each
# test database is made from it) and postgres on every node, the workers known to both on the
# coordinator, then no connections to template1 (Citus's maintenance daemon would hold it open,
# and CREATE DATABASE refuses a template in use).
prepare() {
  local port db worker deadline
  say "citus: preparing the cluster (extension in template1 and postgres, workers, template1 closed)"
  for port in "${ports[@]}"; do
    psql_node "$port" postgres -c "alter database template1 allow_connections true"
    for db in template1 postgres; do
      psql_node "$port" "$db" -c "create extension if not exists citus"
    done
  done
  for db in template1 postgres; do
    psql_node "$CITUS_PORT" "$db" -c "select citus_set_coordinator_host('127.0.0.1', $CITUS_PORT)" >/dev/null
    for worker in "${workers[@]}"; do
      psql_node "$CITUS_PORT" "$db" -c "select citus_add_node('127.0.0.1', $worker)" >/dev/null
    done
  done
  for port in "${ports[@]}"; do
    psql_node "$port" postgres -c "alter database template1 allow_connections false"
    deadline=$((SECONDS + 30))
    while [ "$(psql_node "$port" postgres -c "select count(pg_terminate_backend(pid)) from pg_stat_activity where datname = 'template1' and pid <> pg_backend_pid()")" != 0 ]; do
      [ "$SECONDS" -lt "$deadline" ] || die "citus: connections to template1 on port $port do not end"
      sleep 0.2
    done
  done
  # Last: the mark that all the above is done.
  for port in "${ports[@]}"; do
    psql_node "$port" postgres -c "comment on database template1 is '$ready_mark'"
  done
  prepared || die "citus: the cluster is not as prepared (see: $0 status)"
}

cmd_start() {
  command -v psql >/dev/null || apt_install postgresql-client
  [ -f "$("$PG_BIN/pg_config" --pkglibdir)/citus.so" ] || die "citus: not installed for PostgreSQL $PG_MAJOR (run scripts/citus/build.sh)"
  mkdir -p "$data/run"
  is_root && chown postgres:postgres "$data" "$data/run"
  local port
  for port in "${ports[@]}"; do start_node "$port"; done
  prepared || prepare
  say "citus: coordinator on 127.0.0.1:$CITUS_PORT, workers on ${workers[*]}"
}

cmd_stop() {
  local port dir
  for port in "${ports[@]}"; do
    dir="$data/$(node_name "$port")"
    [ -f "$dir/PG_VERSION" ] || continue
    if as_pg "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
      say "citus: stopping $(node_name "$port")"
      as_pg "$PG_BIN/pg_ctl" -D "$dir" -m fast -w -t 60 stop >/dev/null
    fi
  done
}

cmd_status() {
  local port
  for port in "${ports[@]}"; do
    if answers "$port"; then echo "$(node_name "$port") 127.0.0.1:$port answers"; else echo "$(node_name "$port") 127.0.0.1:$port down"; fi
  done
  if answers "$CITUS_PORT"; then
    psql_node "$CITUS_PORT" postgres -c "select 'node ' || nodename || ':' || nodeport || ' ' || noderole || case when isactive then ' active' else ' inactive' end from pg_dist_node order by nodeport" || true
    if prepared; then echo "prepared for the API tests"; else echo "not prepared for the API tests"; fi
  fi
}

# The tests' databases outlive a run (a failed test keeps its own, and a drop can fail: see
# below): dropped with (force) on the coordinator, which drops them on the workers too, then
# whatever a worker still has. A test's database dropped while one of its transactions was
# between Citus's PREPARE and COMMIT PREPARED leaves that transaction prepared on the workers,
# which refuse to drop the database while it lives (and Citus's recovery of it runs in the
# database's maintenance daemon, which may not have a worker slot): it is rolled back first.
cmd_drop_databases() {
  local patterns=("$@") pattern port db gid dropped=0
  # What the API tests make (tests/api/database.rs), and what sqlx::test makes (its own drop,
  # without force, fails while Citus's maintenance daemon is connected; the next run's test of
  # the same name then fails to set up).
  [ "${#patterns[@]}" -gt 0 ] || patterns=('api\_test\_%' '\_sqlx\_test\_%')
  for pattern in "${patterns[@]}"; do
    for port in "${ports[@]}"; do
      answers "$port" || continue
      while read -r db gid; do
        [ -n "$gid" ] || continue
        psql_node "$port" "$db" -c "rollback prepared '$gid'" || say "citus: could not roll back $gid in $db on port $port"
      done < <(psql_node "$port" postgres -F ' ' -c "select database, gid from pg_prepared_xacts where database like '$pattern'")
    done
    for port in "${ports[@]}"; do
      answers "$port" || continue
      while read -r db; do
        [ -n "$db" ] || continue
        # On the coordinator the drop goes to the workers too, and fails where a worker no longer
        # has the database (an earlier drop half done): then it is dropped here alone.
        if psql_node "$port" postgres -c "drop database if exists \"$db\" with (force)" 2>/dev/null \
          || psql_node "$port" postgres -c "set citus.enable_create_database_propagation to off" \
            -c "drop database if exists \"$db\" with (force)"; then
          dropped=$((dropped + 1))
        else
          say "citus: could not drop $db on port $port"
        fi
      done < <(psql_node "$port" postgres -c "select datname from pg_database where datname like '$pattern'")
    done
  done
  [ "$dropped" = 0 ] || say "citus: dropped $dropped test database(s) left by earlier runs"
}

cmd_env() {
  echo "export CITUS_BASE_URL='postgres://postgres@127.0.0.1:$CITUS_PORT'"
  echo "export CITUS_DATABASE_URL='postgres://postgres@127.0.0.1:$CITUS_PORT/postgres?sslmode=disable'"
}

case "${1:-start}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  drop-databases) shift; cmd_drop_databases "$@" ;;
  reset) cmd_stop; say "citus: deleting $data"; rm -rf "$data" ;;
  env) cmd_env ;;
  *) die "usage: $0 start|stop|status|drop-databases [LIKE-PATTERN...]|reset|env" ;;
esac
