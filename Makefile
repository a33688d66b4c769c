# The two commands of the README. Everything else lives in scripts/.
.PHONY: run test check openapi bench

## Start PostgreSQL and Redis if needed, build everything, and serve http://localhost:8080
run:
	@bash scripts/run.sh

## Run every test: backend, frontend unit, end-to-end in headless Chromium
test:
	@bash scripts/test.sh

## The loop between edits: formats, lints, types, build and budget, unit and API tests, Vitest
check:
	@bash scripts/test.sh check

## Regenerate openapi.json from the backend and the frontend hooks from it
openapi:
	cargo run -q -p backend -- openapi > openapi.json
	cd frontend && npm run generate

## Load benchmarks (numbers go in docs/performance.md)
bench:
	@bash bench/run.sh
	@bash bench/tenancy.sh
	@bash bench/reports.sh
	@bash bench/foreign_keys.sh
	@bash bench/exports.sh
	@bash bench/realtime.sh
	@bash bench/messaging.sh
	@bash bench/mixed.sh
	@bash bench/spreadsheets.sh
	@bash bench/runaway.sh
	@bash bench/tokens.sh
	@bash bench/events.sh
	@bash bench/mail.sh
	@bash bench/rekey.sh
