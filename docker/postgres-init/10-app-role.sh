#!/bin/sh
# Runs once, when the database volume is first initialised (the postgres image runs every file in
# /docker-entrypoint-initdb.d as its superuser). Two roles, neither a superuser nor able to create
# roles or databases:
# - `platform_owner` owns the database and the public schema's tables (the audit log among them):
#   only the `migrate` service connects as it, to migrate and then grant `platform` its rights
#   (backend/src/db.rs, grant_server_role);
# - `platform`, the instances' role, owns nothing but the tenant schemas it creates: it reads and
#   writes the shared tables and only reads and appends to the audit log.
# The owner is a member of `platform`, to migrate the tenant schemas `platform` made.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v app_password="$APP_DB_PASSWORD" -v owner_password="$OWNER_DB_PASSWORD" <<'SQL'
create role platform login nosuperuser nocreatedb nocreaterole password :'app_password';
create role platform_owner login nosuperuser nocreatedb nocreaterole password :'owner_password';
grant platform to platform_owner;
create database enterprise_platform owner platform_owner;
revoke all on database enterprise_platform from public;
SQL
