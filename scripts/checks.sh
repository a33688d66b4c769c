# The first stage of `make test` (and of `make check`): the backend's checks beside the
# frontend's. Sourced by scripts/test.sh, scripts/check.sh and scripts/selftest.sh, which plants a
# fault of each kind in a scratch copy and proves that these functions fail the run on it.
#
# The two sides are bound by different things (rustc's codegen over both cores, node's one thread)
# and share only the server binary, which the backend builds first: they run side by side, each
# into a log of its own, printed when both are done. Callers set `side_by_side_logs` (a fresh
# directory), `binary_ready` and `backend_failed` (files in it).

backend_checks() {
  cargo fmt --check
  # Lints before the build: a planted or real warning fails the side before its longest step.
  cargo clippy --workspace --all-targets --locked -- -D warnings
  # The server binary (target/debug/backend): the frontend's unit tests wait for it (one runs its
  # spreadsheet engine), and `cargo test` reuses the library it builds.
  cargo build -p backend --locked
  touch "$binary_ready"
  # The API tests mostly wait (HTTP, PostgreSQL, Redis, the engine's worker): six at a time
  # finish in 92 s instead of 146 s with one per core, within PostgreSQL's 100 connections.
  cargo test --workspace --locked -- --test-threads=6
}

frontend_checks() {
  # npm ci starts from an empty node_modules every time: skipped when the lockfile is the one the
  # installed tree came from (recorded only after a successful install).
  local lock_sum
  lock_sum="$(sha256sum frontend/package-lock.json | cut -d' ' -f1)"
  if [ "$(cat frontend/node_modules/.lock-sha256 2>/dev/null)" != "$lock_sum" ]; then
    (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >frontend/node_modules/.lock-sha256
  fi
  cd frontend
  npm run check:generated
  npm run lint
  npm run format:check
  npm run typecheck
  # The build's own `tsc -b` is the type check just run: vite and the precompression only.
  npx vite build
  node scripts/precompress.mjs
  npm run budget
  while [ ! -e "$binary_ready" ]; do
    [ -e "$backend_failed" ] && { echo "no server binary: the backend's build failed"; return 1; }
    sleep 2
  done
  npm test
}

# Runs each named function in a fresh `bash -e` of its own, in the background: never inside the
# caller's shell, where an `||` or `&&` list anywhere up the call chain makes bash ignore `set -e`
# in everything it calls, subshells included, so a failed `cargo fmt --check` or clippy would be
# passed over (the self-test met exactly that). Every command's failure ends its side; the EXIT
# trap marks it failed for the other side to see. Fails if any side failed.
side_by_side() {
  local pids=() names=() failed=0 i name
  export side_by_side_logs binary_ready backend_failed
  for name in "$@"; do
    bash -euo pipefail -c '
      trap '\''status=$?; [ "$status" -eq 0 ] || touch "$side_by_side_logs/$0.failed"'\'' EXIT
      source scripts/checks.sh
      SECONDS=0
      "$0"
      echo "($0: ${SECONDS} s)"' "$name" >"$side_by_side_logs/$name.log" 2>&1 &
    pids+=($!) names+=("$name")
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then failed=1; names[$i]="${names[$i]} FAILED"; fi
  done
  for i in "${!names[@]}"; do
    say "${names[$i]}"
    cat "$side_by_side_logs/${names[$i]%% *}.log"
  done
  return $failed
}
