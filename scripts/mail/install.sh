#!/usr/bin/env bash
# Installs MailDev (package.json) into scripts/mail/node_modules unless the lockfile is the one the
# installed tree came from, and exports MAILDEV_BIN. Source it (scripts/mail/start.sh,
# scripts/faults/run.sh).

mail_here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$mail_here/../helpers.sh"
# npm ci starts from an empty node_modules every time: skipped when the lockfile is the one the
# installed tree came from.
mail_lock_sum="$(sha256sum "$mail_here/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$mail_here/node_modules/.lock-sha256" 2>/dev/null)" != "$mail_lock_sum" ]; then
  command -v npm >/dev/null || apt_install nodejs npm
  say "mail: installing MailDev into $mail_here/node_modules"
  (cd "$mail_here" && npm ci --no-audit --no-fund --loglevel=error) \
    && echo "$mail_lock_sum" >"$mail_here/node_modules/.lock-sha256" \
    || { echo "mail: npm ci failed" >&2; return 1 2>/dev/null || exit 1; }
fi
export MAILDEV_BIN="$mail_here/node_modules/maildev/bin/maildev"
