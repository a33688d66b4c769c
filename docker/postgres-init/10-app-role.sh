#!/bin/sh
# Runs once, when the database volume is first initialised (the postgres image runs every file in
# /docker-entrypoint-initdb.d as its superuser). The app gets a role of its own: it owns its
# database, hence the public schema and every tenant schema it creates, and holds no other
# privilege (no superuser, no CREATEROLE, no CREATEDB).
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v app_password="$APP_DB_PASSWORD" <<'SQL'
create role platform login nosuperuser nocreatedb nocreaterole password :'app_password';
create database enterprise_platform owner platform;
revoke all on database enterprise_platform from public;
SQL
