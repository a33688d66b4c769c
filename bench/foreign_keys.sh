#!/usr/bin/env bash
# Foreign keys from tenant tables to public.users, with and without (see bench/foreign_keys.py).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ensure_psycopg
python3 bench/foreign_keys.py
