#!/usr/bin/env bash
# Fault tests: two server instances (A and B) sharing a throwaway PostgreSQL cluster and a
# throwaway Redis of their own (never the machine's shared ones, which other tests use), then
# faults.py: PostgreSQL restarted under a mixed load of reads and writes, Redis stopped and
# started again while people sign in, use the API and listen on WebSockets, and a third instance
# (C, which faults.py starts itself) killed with SIGKILL right after it acknowledged a change whose
# webhook event must still be delivered, and an invitation made while the mail server is down,
# which must arrive once when it comes up. Every instance delivers webhooks to 127.0.0.1
# (WEBHOOK_ALLOW_PRIVATE_NETWORKS) and retries at a thousandth of the real schedule. Everything
# started here is stopped and removed on exit, pass or fail.
#
#   FAULTS_BIN            the server binary (default: the debug build)
#   FAULTS_PG_PORT, FAULTS_REDIS_PORT, FAULTS_PORT_A, FAULTS_PORT_B, FAULTS_PORT_C
#   FAULTS_SMTP_PORT, FAULTS_MAIL_HTTP_PORT
#                         ports (default 25432, 26379, 28181, 28182, 28183, 22525, 22580: below
#                         Linux's ephemeral range, 32768-60999, so that no client connection of the
#                         run holds one when PostgreSQL, Redis or the mail server binds it mid-run)
#   FAULTS_BREAK          lose-write | redis-elsewhere | lose-event | send-twice | lose-mail: break the
#                         setup on purpose, to see the checks fail (faults.py says what each does)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/services.sh
# The mail server faults.py starts mid-run: MailDev (exports MAILDEV_BIN).
source scripts/mail/install.sh

pg_bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -x "$pg_bin/initdb" ] || { apt_install postgresql; pg_bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"; }
command -v redis-server >/dev/null || apt_install redis-server

venv="${XDG_CACHE_HOME:-$HOME/.cache}/enterprise-platform/faults-venv"
# Every pin of requirements.txt, not any one of them, must be what the venv has.
pins="$(grep -E '^[^#[:space:]]' scripts/faults/requirements.txt | sort)"
if [ -n "$(comm -23 <(echo "$pins") <("$venv/bin/pip" freeze 2>/dev/null | sort))" ]; then
  say "faults: installing $(echo $pins) into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q -r scripts/faults/requirements.txt
fi

bin="${FAULTS_BIN:-${CARGO_TARGET_DIR:-$PWD/target}/debug/backend}"
[ -x "$bin" ] || die "no server binary at $bin (cargo build -p backend)"
pg_port="${FAULTS_PG_PORT:-25432}" redis_port="${FAULTS_REDIS_PORT:-26379}"
port_a="${FAULTS_PORT_A:-28181}" port_b="${FAULTS_PORT_B:-28182}" port_c="${FAULTS_PORT_C:-28183}"
smtp_port="${FAULTS_SMTP_PORT:-22525}" mail_http_port="${FAULTS_MAIL_HTTP_PORT:-22580}"
for port in "$pg_port" "$redis_port" "$port_a" "$port_b" "$port_c" "$smtp_port" "$mail_http_port"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is taken (set FAULTS_*_PORT)"; fi
done

work="$(mktemp -d /tmp/faults.XXXXXX)"
chmod 755 "$work"
servers=()
cleanup() {
  set +e
  for pid in "${servers[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${servers[@]}"; do wait "$pid" 2>/dev/null; done
  [ -x "$work/pg-stop" ] && "$work/pg-stop" >/dev/null 2>&1
  [ -x "$work/redis-stop" ] && "$work/redis-stop" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT

# PostgreSQL: a cluster of our own, trust on 127.0.0.1, run by `postgres` when we are root.
as_pg=()
if is_root; then
  as_pg=(runuser -u postgres --)
  mkdir -p "$work/pg" && chown postgres: "$work/pg"
fi
"${as_pg[@]}" "$pg_bin/initdb" -D "$work/pg/data" -U postgres -A trust --no-sync >"$work/initdb.log" 2>&1 \
  || { cat "$work/initdb.log"; die "initdb failed"; }
cat >"$work/pg-start" <<EOF
#!/usr/bin/env bash
exec ${as_pg[*]} "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/server.log" -w -t 30 \\
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories='$work/pg' -c max_connections=200" start
EOF
# An immediate stop is a crash as far as the data is concerned: the next start replays the WAL.
cat >"$work/pg-stop" <<EOF
#!/usr/bin/env bash
exec ${as_pg[*]} "$pg_bin/pg_ctl" -D "$work/pg/data" -m immediate -w -t 30 stop
EOF

# Redis: no persistence, as a restarted cache that lost everything.
cat >"$work/redis-start" <<EOF
#!/usr/bin/env bash
port=\${1:-$redis_port}
redis-server --daemonize yes --bind 127.0.0.1 --port "\$port" --save "" --appendonly no \\
  --dir "$work" --pidfile "$work/redis-\$port.pid" --logfile "$work/redis.log"
for _ in \$(seq 1 50); do redis-cli -p "\$port" ping 2>/dev/null | grep -q PONG && exit 0; sleep 0.1; done
exit 1
EOF
cat >"$work/redis-stop" <<EOF
#!/usr/bin/env bash
for pidfile in "$work"/redis-*.pid; do
  [ -f "\$pidfile" ] || continue
  pid=\$(cat "\$pidfile"); kill "\$pid" 2>/dev/null
  for _ in \$(seq 1 50); do kill -0 "\$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "\$pidfile"
done
EOF
chmod +x "$work"/pg-start "$work"/pg-stop "$work"/redis-start "$work"/redis-stop
"$work/pg-start" >/dev/null || { cat "$work/pg/server.log"; die "PostgreSQL did not start"; }
"$work/redis-start" || die "Redis did not start ($work/redis.log)"

export DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/faults" REDIS_URL="redis://127.0.0.1:$redis_port"
export REDIS_PREFIX="faults:" JWT_SECRET="$(openssl rand -hex 32)" DATA_ENCRYPTION_KEYS="v1:$(openssl rand -base64 32)" RUST_LOG="${RUST_LOG:-warn}"
export FAULTS_ADMIN_EMAIL="admin@faults.test" FAULTS_ADMIN_PASSWORD="faults-admin-password" FAULTS_WORK="$work"
# Webhooks: every instance (C too) delivers to the test's receiver on 127.0.0.1 over http, and
# retries at a thousandth of the real schedule (5 ms, 300 ms, 1.8 s, 7.2 s, ...). A and B look at
# the outbox every second when idle (not 200 ms): an event C commits just before it is killed most
# likely still waits there, as after a crash.
export WEBHOOK_ALLOW_PRIVATE_NETWORKS=true WEBHOOK_RETRY_SCALE=0.001 OUTBOX_POLL_MS=1000
export FAULTS_SERVER_BIN="$bin" FAULTS_PORT_C="$port_c"
# E-mail: A and B send to a mail server that is down until faults.py starts one (MailDev), and
# retry at a hundredth of the real schedule (0.1 s, 0.6 s, 3 s, 9 s, ...).
export SMTP_URL="smtp://127.0.0.1:$smtp_port" MAIL_RETRY_SCALE=0.01 FAULTS_SMTP_PORT="$smtp_port" FAULTS_MAIL_HTTP_PORT="$mail_http_port"
"$bin" create-admin --email "$FAULTS_ADMIN_EMAIL" --password "$FAULTS_ADMIN_PASSWORD" --full-name "Faults Admin" >/dev/null
for name in a b; do
  port=$port_a; [ "$name" = b ] && port=$port_b
  BIND_ADDR="127.0.0.1:$port" "$bin" serve >"$work/server-$name.log" 2>&1 &
  servers+=($!)
  for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.1; done
  curl -fs "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$work/server-$name.log"; die "server $name did not start"; }
done

if ! "$venv/bin/python" scripts/faults/faults.py "http://127.0.0.1:$port_a" "http://127.0.0.1:$port_b"; then
  for name in a b c-1 c-2; do
    [ -f "$work/server-$name.log" ] || continue
    echo "--- server $name: last errors (and e-mail warnings) ---"
    grep -E ' ERROR |panicked|e-mail' "$work/server-$name.log" | tail -n 20 || true
  done
  [ -f "$work/maildev.log" ] && { echo "--- the mail server ---"; tail -n 20 "$work/maildev.log"; }
  die "fault tests failed"
fi
# The outages are deliberate, and the server answers them with 503s and warnings: an error or a
# panic in any log is a defect all the same (C's: c-1 until it was killed, c-2 after its restart).
for name in a b c-1 c-2; do
  [ -f "$work/server-$name.log" ] || die "no log of server $name"
  if grep -E ' ERROR |panicked' "$work/server-$name.log" >"$work/problems-$name.log"; then
    echo "--- server $name: errors or panics ---"
    head -n 20 "$work/problems-$name.log"
    die "server $name logged errors or panicked during the fault tests"
  fi
done
