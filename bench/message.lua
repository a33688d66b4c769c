-- wrk script: POST /api/v1/messaging/messages as BENCH_TOKEN, round robin over the conversations
-- listed (one id a line) in BENCH_CONVERSATIONS, each with its first key epoch; random bytes
-- stand in for ciphertext (the server cannot tell). Every message gets a fresh id.
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
wrk.headers["Content-Type"] = "application/json"

local conversations = {}
for line in io.lines(os.getenv("BENCH_CONVERSATIONS")) do conversations[#conversations + 1] = line end
local iv = "AAAAAAAAAAAAAAAA"
local ciphertext = string.rep("QUJD", 64)
local signature = string.rep("A", 86) .. "=="
local counter = 0

function setup(thread)
  thread:set("offset", math.random(1, 1000000))
end

-- Each thread's own random sequence (they would all start from the same seed and send the same ids).
function init(args)
  math.randomseed(offset or 0)
end

local function uuid()
  return string.format("%08x-%04x-4%03x-%04x-%012x", math.random(0, 0xffffffff), math.random(0, 0xffff), math.random(0, 0xfff),
    0x8000 + math.random(0, 0x3fff), math.random(0, 0xffffffffffff))
end

function request()
  counter = counter + 1
  local conversation = conversations[(counter + (offset or 0)) % #conversations + 1]
  local body = string.format('{"id":"%s","conversationId":"%s","epoch":1,"senderKeyVersion":1,"iv":"%s","ciphertext":"%s","signature":"%s"}',
    uuid(), conversation, iv, ciphertext, signature)
  return wrk.format(nil, nil, nil, body)
end

function done(summary, latency, requests)
  local errors = summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("non-2xx or failed: %d of %d\n", errors, summary.requests))
end
