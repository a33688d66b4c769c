#!/usr/bin/env bash
# Proves that the first stage of `make test` fails on each kind of fault it claims to catch: a
# formatting error, a clippy warning, an ESLint error and a bundle over its budget are planted, one
# at a time, in a scratch copy of this checkout, and scripts/checks.sh's functions must fail on
# each, naming it. The copy lives outside the clone (beside the Cargo target directory), so a
# second run on the machine re-checks only what changed; its node_modules is this checkout's, its
# Cargo target directory its own.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/helpers.sh
root="$PWD"
scratch="${SELFTEST_DIR:-${CARGO_TARGET_DIR:-$root/target}/../selftest-copy}"
mkdir -p "$scratch"
scratch="$(cd "$scratch" && pwd)"
# A Cargo target directory of its own: Cargo names a workspace's artifacts by their path inside
# it, so a copy building into the checkout's directory would overwrite the checkout's artifacts
# while the next stages build and run them (a first run fills it: about 4 minutes of both cores).
export CARGO_TARGET_DIR="$scratch-target"
[ -d frontend/node_modules ] || die "run the first stage first: the self-test borrows frontend/node_modules"

# A fresh copy of the checkout (unchanged files keep their times, so Cargo and tsc reuse their work).
fresh_copy() {
  rsync -a --delete --exclude /target --exclude /frontend/node_modules --exclude /frontend/dist \
    --exclude /.run --exclude /frontend/test-results "$root/" "$scratch/"
  ln -sfn "$root/frontend/node_modules" "$scratch/frontend/node_modules"
}

# Runs one side of the first stage in the copy; it must fail, and its log must show `expected`.
must_fail() {
  local what="$1" side="$2" expected="$3" logs status=0
  logs="$(mktemp -d)"
  (
    cd "$scratch"
    source scripts/checks.sh
    side_by_side_logs="$logs" binary_ready="$logs/binary-ready" backend_failed="$logs/backend_checks.failed"
    side_by_side "$side"
  ) >"$logs/out" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    tail -n 40 "$logs/out"
    die "self-test: $what did not fail $side"
  fi
  if ! grep -q -- "$expected" "$logs/out"; then
    tail -n 40 "$logs/out"
    die "self-test: $side failed with $what planted, but not on it (no \"$expected\" in its output)"
  fi
  say "self-test: $what fails $side (\"$expected\")"
  rm -rf "$logs"
}

# 1. A formatting error: `cargo fmt --check` prints the diff.
fresh_copy
printf '\npub fn selftest_planted( ) -> u8 {1}\n' >>"$scratch/backend/src/lib.rs"
must_fail "a formatting error" backend_checks "Diff in"

# 2. A clippy warning in well-formatted code: clippy::len_zero, denied by -D warnings.
fresh_copy
printf '\npub fn selftest_planted(bytes: &[u8]) -> bool {\n    bytes.len() == 0\n}\n' >>"$scratch/backend/src/lib.rs"
must_fail "a clippy warning" backend_checks "clippy::len_zero"

# 3. An ESLint error in well-formatted code: no-debugger.
fresh_copy
printf 'export function selftestPlanted(): void {\n  debugger;\n}\n' >"$scratch/frontend/src/selftest-planted.ts"
must_fail "an ESLint error" frontend_checks "no-debugger"

# 4. The sign-in page's scripts over their budget: 300 kB of random text loaded by the entry.
fresh_copy
{
  printf "Reflect.set(globalThis, 'selftestPlanted', '"
  head -c 300000 /dev/urandom | base64 -w0
  printf "');\n"
} >"$scratch/frontend/src/selftest-planted.ts"
sed -i "1i import './selftest-planted';" "$scratch/frontend/src/main.tsx"
(cd "$scratch/frontend" && npx prettier --write src/main.tsx src/selftest-planted.ts >/dev/null)
must_fail "a bundle over its budget" frontend_checks "over budget by"

rm -rf "$scratch/frontend/dist"
