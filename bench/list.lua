-- wrk script: GET the path given (a report list) as BENCH_TOKEN.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("non-2xx or failed: %d of %d\n", errors, summary.requests))
end
