#!/usr/bin/env bash
# Starts the mail server of `make run` and of the tests, MailDev (package.json: a real SMTP server
# that keeps what it receives, with a web page to read it and an API the tests read: GET
# /email?to.address=…, GET /email/:id/source, DELETE /email/all), unless this checkout's answers
# already (helpers.sh: `may_reuse`). Source it: it exports SMTP_URL (for the server),
# MAIL_CATCHER_URL (MailDev's page and API) and TEST_PYTHON (a venv's Python with aiosmtpd for
# refusing.py, and pyotp for the tests' authenticator codes).
#
#   MAIL_SMTP_PORT  default 1025     MAIL_HTTP_PORT  default 1080
#   MAIL_DIR        default /tmp/enterprise-platform-mail (MailDev keeps each message there)

mail_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$mail_here/../helpers.sh"
MAIL_SMTP_PORT="${MAIL_SMTP_PORT:-1025}" MAIL_HTTP_PORT="${MAIL_HTTP_PORT:-1080}"
MAIL_DIR="${MAIL_DIR:-/tmp/enterprise-platform-mail}"
export SMTP_URL="smtp://127.0.0.1:$MAIL_SMTP_PORT" MAIL_CATCHER_URL="http://127.0.0.1:$MAIL_HTTP_PORT"
mail_venv="${XDG_CACHE_HOME:-$HOME/.cache}/enterprise-platform/mail-venv"
export TEST_PYTHON="$mail_venv/bin/python"
if ! cmp -s "$mail_here/requirements.txt" "$mail_venv/requirements.txt"; then
  say "mail: installing the tests' Python tools into $mail_venv"
  python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv
  rm -rf "$mail_venv" && python3 -m venv "$mail_venv"
  "$mail_venv/bin/pip" install -q -r "$mail_here/requirements.txt"
  cp "$mail_here/requirements.txt" "$mail_venv/requirements.txt"
fi
source "$mail_here/install.sh"
mail_answers() { curl -fs "$MAIL_CATCHER_URL/healthz" >/dev/null 2>&1; }
if ! mail_answers || ! may_reuse mail "$MAIL_HTTP_PORT" "mail catcher" maildev/bin/maildev; then
  mkdir -p "$MAIL_DIR"
  nohup node "$MAILDEV_BIN" --ip 127.0.0.1 --smtp "$MAIL_SMTP_PORT" \
    --web "$MAIL_HTTP_PORT" --mail-directory "$MAIL_DIR" >"$MAIL_DIR.log" 2>&1 &
  mail_pid=$!
  started_service mail "$MAIL_HTTP_PORT" "$mail_pid"
  for _ in $(seq 1 100); do
    mail_answers && break
    # A taken port ends it at once: no point waiting out the 20 s.
    kill -0 "$mail_pid" 2>/dev/null || break
    sleep 0.2
  done
  mail_answers || { echo "the mail server did not start (see $MAIL_DIR.log)" >&2; return 1 2>/dev/null || exit 1; }
fi
