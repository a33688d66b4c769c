#!/usr/bin/env bash
# E-mail (issue 25; see bench/mail.py), through the real mail catcher (MailDev, scripts/mail/start.sh,
# which writes each message it keeps to MAIL_DIR) on loopback:
#   1. an invitation's latency, from the 201 of POST /users to the message in the catcher's box,
#      SEQ invitations one after the other;
#   2. throughput: BURST invitations from 8 threads, until the last one is in the box;
#   3. a digest: SUBMISSIONS reports submitted at once reach the CEO as how many e-mails.
# Bounded: fixed counts, loopback only.
#
#   bash bench/mail.sh        SEQ=50 BURST=200 bash bench/mail.sh
set -euo pipefail
source "$(dirname "$0")/lib.sh"
port="${BENCH_PORT:-8295}"
export MAIL_SMTP_PORT=$((port + 10)) MAIL_HTTP_PORT=$((port + 11)) MAIL_DIR="$(mktemp -d)/mail"
source scripts/mail/start.sh
export BENCH_MAIL_DIR="$MAIL_DIR" MAIL_DIGEST_SECS="${MAIL_DIGEST_SECS:-2}" PUBLIC_URL="http://localhost:$port"
start_server enterprise_platform_bench_mail "$port"
python3 bench/mail.py
pkill -f "maildev --ip 127.0.0.1 --smtp $MAIL_SMTP_PORT" || true
