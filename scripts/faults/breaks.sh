#!/usr/bin/env bash
# Proves the fault run can fail: each FAULTS_BREAK mode (scripts/faults/faults.py) breaks the
# setup on purpose, and the run must fail, on the check that guards against that break. Each run
# is a whole fault run (its own PostgreSQL, Redis and instances); they follow one another, since
# they share the fault run's ports. `make test` runs this beside the end-to-end stages: the runs
# mostly wait (outages, deadlines), so they cost little of the cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/helpers.sh

# mode|the check that must fail (the start of its line, after "FAIL: ")
breaks=(
  "lose-write|every acknowledged write is there after the restart"
  "redis-elsewhere|events raised on A reach the socket on B again"
  "lose-event|the event C acknowledged before it was killed is delivered"
  "send-twice|each webhook-id arrives once"
  "lose-mail|the invitation arrives within"
)
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for entry in "${breaks[@]}"; do
  mode="${entry%%|*}" expected="${entry#*|}"
  SECONDS=0
  if FAULTS_BREAK="$mode" bash scripts/faults/run.sh >"$log" 2>&1; then
    cat "$log"
    die "FAULTS_BREAK=$mode: the fault run passed with its setup broken"
  fi
  if ! grep -qF "FAIL: $expected" "$log"; then
    cat "$log"
    die "FAULTS_BREAK=$mode: the fault run failed, but not on \"$expected\""
  fi
  say "faults: FAULTS_BREAK=$mode fails the run on \"$expected\" ($SECONDS s)"
done
