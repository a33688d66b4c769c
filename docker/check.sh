#!/usr/bin/env bash
# Checks docker/compose.yaml and docker/nginx.conf without a Docker daemon (`make test` runs it):
# Compose accepts the file with and without the `balanced` profile; Redis requires a password; both instances get the same
# settings, every server setting the README documents among them; the balancer's fixed address
# is on its network, outside the range handed out to others, and believed by the instances; and
# nginx accepts nginx.conf, whose upstream names both instances.
# Needs docker-compose (Debian's, v1) or `docker compose` (v2), nginx and python3-yaml.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then compose=(docker compose); else compose=(docker-compose); fi
# Placeholder secrets: the file requires them.
export JWT_SECRET=check DATA_ENCRYPTION_KEYS=check POSTGRES_PASSWORD=check APP_DB_PASSWORD=check OWNER_DB_PASSWORD=check REDIS_PASSWORD=check
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"${compose[@]}" -f docker/compose.yaml config >"$work/default.yaml"
"${compose[@]}" -f docker/compose.yaml --profile balanced config >"$work/balanced.yaml"

python3 - "$work/balanced.yaml" README.md docker/nginx.conf <<'PY'
import ipaddress, re, sys, yaml

config = yaml.safe_load(open(sys.argv[1]))
readme = open(sys.argv[2]).read()
nginx = open(sys.argv[3]).read()
services = config["services"]
problems = []

for name in ("app", "app2", "balancer", "postgres", "redis", "migrate"):
    if name not in services:
        problems.append(f"no service {name}")
for name in ("app2", "balancer"):
    if services.get(name, {}).get("profiles") != ["balanced"]:
        problems.append(f"{name} is not in the balanced profile only")
for name in ("app", "postgres", "redis", "migrate"):
    if services.get(name, {}).get("profiles"):
        problems.append(f"{name} must run without a profile")

app, app2 = services["app"], services["app2"]
# Redis requires a password, and the instances present it.
if "--requirepass" not in " ".join(services["redis"].get("command") or []):
    problems.append("redis does not require a password")
if not app["environment"].get("REDIS_URL", "").startswith("redis://:check@"):
    problems.append("the instances do not give Redis its password")
if app["environment"] != app2["environment"]:
    problems.append("app and app2 have different environments")
if app.get("image") != app2.get("image"):
    problems.append("app and app2 run different images")

# Every setting of the README's table reaches the server, but those the image sets (BIND_ADDR,
# STATIC_DIR, LOG_FORMAT), PORT (the published port here) and `make run`'s own.
documented = set()
for line in readme.splitlines():
    if line.startswith("| `"):
        documented.update(re.findall(r"`([A-Z][A-Z0-9_]+)", line.split("|")[1]))
# MIGRATION_DATABASE_URL goes to the one-shot `migrate` service only: the owner's password stays
# out of the instances, whose role cannot rewrite the audit log.
# APP_ENV is development mode (a random JWT_SECRET) and DEMO_OIDC_ISSUER the demo's seeding: never
# a deployment's.
not_passed = {"BIND_ADDR", "PORT", "STATIC_DIR", "LOG_FORMAT", "ADMIN_EMAIL", "ADMIN_PASSWORD", "SEED_DEMO", "MIGRATION_DATABASE_URL",
              "APP_ENV", "DEMO_OIDC_ISSUER"}
migrate = services.get("migrate", {})
if migrate.get("command") != ["migrate"] or "MIGRATION_DATABASE_URL" not in migrate.get("environment", {}):
    problems.append("no migrate service that migrates as the owner (MIGRATION_DATABASE_URL)")
if migrate.get("environment", {}).get("DATABASE_URL") != app["environment"].get("DATABASE_URL"):
    problems.append("the migrate service grants another role than the instances connect as")
for name in ("app", "app2"):
    if "MIGRATION_DATABASE_URL" in services[name]["environment"]:
        problems.append(f"{name} holds the owner's MIGRATION_DATABASE_URL")
    if services[name].get("depends_on", {}).get("migrate", {}).get("condition") != "service_completed_successfully":
        problems.append(f"{name} may start before the migration finished")
if len(documented) < 20:
    problems.append(f"found only {len(documented)} settings in the README's table")
missing = sorted(documented - not_passed - set(app["environment"]))
if missing:
    problems.append(f"documented settings compose does not pass: {', '.join(missing)}")

network = config["networks"]["balancer"]["ipam"]["config"][0]
subnet, handed_out = ipaddress.ip_network(network["subnet"]), ipaddress.ip_network(network["ip_range"])
address = ipaddress.ip_address(services["balancer"]["networks"]["balancer"]["ipv4_address"])
if address not in subnet or address in handed_out:
    problems.append(f"the balancer's {address} must be in {subnet} and outside {handed_out}")
trusted = [ipaddress.ip_network(p.strip(), strict=False) for p in app["environment"]["TRUSTED_PROXIES"].split(",") if p.strip()]
if not any(address in net for net in trusted):
    problems.append(f"the instances do not trust the balancer's {address}")
for name in ("app", "app2"):
    if "balancer" not in services[name].get("networks", {}):
        problems.append(f"{name} is not on the balancer's network")

upstreams = re.findall(r"^\s*server\s+([\w.-]+):(\d+)", nginx, re.M)
if sorted(h for h, _ in upstreams) != ["app", "app2"]:
    problems.append(f"nginx.conf's upstream is {upstreams}, not app and app2")

if problems:
    sys.exit("docker/compose.yaml, docker/nginx.conf:\n  " + "\n  ".join(problems))
PY

# nginx itself reads nginx.conf, with the instances' names and its log paths made local.
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
sed -e '/^user /d' -e "s#/var/log/nginx/#$work/#g" -e 's/server app2\?:8080/server 127.0.0.1:8080/' docker/nginx.conf >"$work/nginx.conf"
"$nginx_bin" -q -t -p "$work" -c "$work/nginx.conf" -e stderr -g "pid $work/nginx.pid;"
echo "docker/compose.yaml and docker/nginx.conf: valid"
