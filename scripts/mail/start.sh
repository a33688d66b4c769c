#!/usr/bin/env bash
# Starts the mail catcher (catcher.py: a real SMTP server that keeps what it receives, with a page
# to read it) unless this checkout's answers already (helpers.sh: `may_reuse`). Source it: it
# exports SMTP_URL (for the server),
# MAIL_CATCHER_URL (to read the messages) and TEST_PYTHON (the venv's Python, which also has pyotp
# for the tests' authenticator codes).
#
#   MAIL_SMTP_PORT  default 1025     MAIL_HTTP_PORT  default 1080
#   MAIL_DIR        default /tmp/enterprise-platform-mail

mail_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$mail_here/../helpers.sh"
MAIL_SMTP_PORT="${MAIL_SMTP_PORT:-1025}" MAIL_HTTP_PORT="${MAIL_HTTP_PORT:-1080}"
MAIL_DIR="${MAIL_DIR:-/tmp/enterprise-platform-mail}"
export SMTP_URL="smtp://127.0.0.1:$MAIL_SMTP_PORT" MAIL_CATCHER_URL="http://127.0.0.1:$MAIL_HTTP_PORT"
mail_venv="${XDG_CACHE_HOME:-$HOME/.cache}/enterprise-platform/mail-venv"
export TEST_PYTHON="$mail_venv/bin/python"
if ! cmp -s "$mail_here/requirements.txt" "$mail_venv/requirements.txt"; then
  printf '\033[1m==> %s\033[0m\n' "mail: installing aiosmtpd into $mail_venv" >&2
  python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv
  rm -rf "$mail_venv" && python3 -m venv "$mail_venv"
  "$mail_venv/bin/pip" install -q -r "$mail_here/requirements.txt"
  cp "$mail_here/requirements.txt" "$mail_venv/requirements.txt"
fi
if ! curl -fs "$MAIL_CATCHER_URL/api/messages?to=nobody" >/dev/null 2>&1 || ! may_reuse mail "$MAIL_HTTP_PORT" "mail catcher" scripts/mail/catcher.py; then
  mkdir -p "$MAIL_DIR"
  nohup "$mail_venv/bin/python" "$mail_here/catcher.py" --smtp "127.0.0.1:$MAIL_SMTP_PORT" \
    --http "127.0.0.1:$MAIL_HTTP_PORT" --dir "$MAIL_DIR" >"$MAIL_DIR.log" 2>&1 &
  started_service mail "$MAIL_HTTP_PORT" $!
  for _ in $(seq 1 50); do
    curl -fs "$MAIL_CATCHER_URL/api/messages?to=nobody" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fs "$MAIL_CATCHER_URL/api/messages?to=nobody" >/dev/null || { echo "the mail catcher did not start (see $MAIL_DIR.log)" >&2; return 1 2>/dev/null || exit 1; }
fi
