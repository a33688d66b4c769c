#!/usr/bin/env bash
# Spreadsheets (see bench/spreadsheets.py): open and save a 10,000-cell workbook through the API
# (the server checks every save with its engine), its XLSX export and import, the same workbook in
# the browser's engine (@ironcalc/wasm under Node: load, evaluate, save), and the chunk sizes.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
start_server enterprise_platform_bench_sheets "${BENCH_PORT:-8288}"
export BENCH_WORKBOOK="$(mktemp)"
"$BENCH_BIN" sample-workbook --rows "${ROWS:-100}" --columns "${COLUMNS:-100}" > "$BENCH_WORKBOOK"
python3 bench/spreadsheets.py
echo "## 5. The browser's engine (@ironcalc/wasm under Node) with the same workbook"
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && node ../bench/spreadsheet-engine.mjs "$BENCH_WORKBOOK")
echo "## 6. Chunks (gzip) of the built app: the engine and the grid load with the spreadsheet route only"
(cd frontend && { [ -d dist ] || npm run build >/dev/null; } && node ../bench/chunk-sizes.mjs)
rm -f "$BENCH_WORKBOOK"
