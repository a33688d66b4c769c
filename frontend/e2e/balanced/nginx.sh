#!/usr/bin/env bash
# The balancer of the balanced end-to-end run (playwright.balanced.config.ts): Debian's nginx in
# the foreground, no daemon, everything it writes (configuration, pid, temp files, access log) in
# one folder, round robin over the instances, WebSockets passed through.
#
#   nginx.sh DIR PORT HOST:PORT...
#
# Every response names the instance that served it (`X-Upstream`), and the access log (DIR/
# access.log, one JSON object a line) records it for each request. A request is never retried on
# the other instance (`proxy_next_upstream off`) nor an instance set aside after a failure
# (`max_fails=0`): a broken instance shows as failed requests instead of hiding behind the other.
set -euo pipefail
dir=$1 port=$2
shift 2
nginx=$(command -v nginx || echo /usr/sbin/nginx)

rm -rf "$dir"
mkdir -p "$dir/temp"
user=""
if [ "$(id -u)" = 0 ]; then
  # As root, nginx's workers run as nobody: they need the temp folder (buffered bodies).
  user="user nobody nogroup;"
  chown nobody:nogroup "$dir/temp"
fi
servers=""
for upstream in "$@"; do servers+="    server $upstream max_fails=0;"$'\n'; done

cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log stderr warn;
$user
events { worker_connections 1024; }

http {
  log_format balanced escape=json '{"time":"\$time_iso8601","method":"\$request_method","uri":"\$uri",'
    '"status":"\$status","upstream":"\$upstream_addr","upstreamStatus":"\$upstream_status",'
    '"upgrade":"\$http_upgrade","forwardedFor":"\$proxy_add_x_forwarded_for"}';
  access_log $dir/access.log balanced;
  client_body_temp_path $dir/temp/body;
  proxy_temp_path $dir/temp/proxy;
  fastcgi_temp_path $dir/temp/fastcgi;
  uwsgi_temp_path $dir/temp/uwsgi;
  scgi_temp_path $dir/temp/scgi;

  # A WebSocket handshake asks the instance to upgrade; any other request keeps the upstream
  # connection alive for the next one.
  map \$http_upgrade \$connection_upgrade {
    default upgrade;
    '' '';
  }

  upstream platform {
$servers    keepalive 16;
  }

  server {
    listen 127.0.0.1:$port;
    # The instances enforce their own limits (MAX_BODY_BYTES, MAX_SPREADSHEET_BODY_BYTES: 413 in
    # the API's error shape); nginx's default of 1 MiB would answer first, in HTML.
    client_max_body_size 64m;

    proxy_http_version 1.1;
    proxy_set_header Host \$http_host;
    proxy_set_header Upgrade \$http_upgrade;
    proxy_set_header Connection \$connection_upgrade;
    proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
    proxy_set_header X-Forwarded-Proto \$scheme;
    proxy_next_upstream off;
    add_header X-Upstream \$upstream_addr always;

    location / {
      proxy_pass http://platform;
    }

    # The real-time socket stays open for the whole visit, mostly quiet.
    location = /api/v1/ws {
      proxy_pass http://platform;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }
  }
}
CONF

exec "$nginx" -p "$dir" -c "$dir/nginx.conf" -e stderr -g 'daemon off;'
