-- wrk script: GET /api/v1/reports/{id} as BENCH_TOKEN, round robin over the report ids listed
-- (one a line) in BENCH_REPORTS, each thread starting at its own offset.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")

local ids = {}
for line in io.lines(os.getenv("BENCH_REPORTS")) do ids[#ids + 1] = line end
local counter = 0

function setup(thread)
  thread:set("offset", math.random(1, 1000000))
end

function request()
  counter = counter + 1
  return wrk.format("GET", "/api/v1/reports/" .. ids[(counter + (offset or 0)) % #ids + 1])
end

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("non-2xx or failed: %d of %d\n", errors, summary.requests))
end
