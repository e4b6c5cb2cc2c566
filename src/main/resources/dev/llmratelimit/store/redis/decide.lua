-- One decision (SPEC section 2), the same rule as dev.llmratelimit.engine.DecisionRule.
-- KEYS[1]  the model's hash: e = window end (ms, server clock), r/t = model requests/tokens,
--          r:<pool>/t:<pool> = pool requests/tokens
-- ARGV     window ms, model rpm, model tpm, pool rpm, pool tpm, pools enforced (1/0),
--          saturation threshold, pool request field, pool token field
-- Returns  {refused limit (0 admitted, 1 model requests, 2 model tokens, 3 pool requests,
--          4 pool tokens), model requests, model tokens, pool requests, pool tokens, ms to window end},
--          the counters as read before this request.
local key = KEYS[1]
local window = tonumber(ARGV[1])
local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local poolRpm = tonumber(ARGV[4])
local poolTpm = tonumber(ARGV[5])
local enforced = ARGV[6] == '1'
local threshold = tonumber(ARGV[7])
local poolRequestField = ARGV[8]
local poolTokenField = ARGV[9]

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local read = redis.call('HMGET', key, 'e', 'r', 't', poolRequestField, poolTokenField)
local windowEnd = tonumber(read[1])
local requests, tokens, poolRequests, poolTokens
local fresh = windowEnd == nil or windowEnd <= now
if fresh then
    windowEnd = now + window
    requests, tokens, poolRequests, poolTokens = 0, 0, 0, 0
else
    requests = tonumber(read[2]) or 0
    tokens = tonumber(read[3]) or 0
    poolRequests = tonumber(read[4]) or 0
    poolTokens = tonumber(read[5]) or 0
end

local saturation = 0.0
if rpm > 0 then
    saturation = requests / rpm
end
if tpm > 0 then
    saturation = math.max(saturation, tokens / tpm)
end
local strict = enforced and saturation >= threshold

local refused = 0
if rpm > 0 and requests + 1 > rpm then
    refused = 1
elseif tpm > 0 and tokens >= tpm then
    refused = 2
elseif strict and rpm > 0 and poolRequests + 1 > poolRpm then
    refused = 3
elseif strict and tpm > 0 and poolTokens >= poolTpm then
    refused = 4
end

if fresh then
    -- A new window starts with this decision, admitted or not; the old one's fields go with it.
    redis.call('DEL', key)
    local admittedCount = refused == 0 and 1 or 0
    redis.call('HSET', key, 'e', string.format('%d', windowEnd), 'r', admittedCount, poolRequestField, admittedCount)
    redis.call('PEXPIREAT', key, string.format('%d', windowEnd))
elseif refused == 0 then
    redis.call('HINCRBY', key, 'r', 1)
    redis.call('HINCRBY', key, poolRequestField, 1)
end

return {refused, requests, tokens, poolRequests, poolTokens, windowEnd - now}
