-- wrk script: POST /api/v1/monitoring/sessions/activity (a heartbeat) with BENCH_TOKEN.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("non-2xx or failed: %d of %d\n", errors, summary.requests))
end
