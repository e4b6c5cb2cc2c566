-- One decision (SPEC sections 2, 4 and 9), the same rule as dev.llmratelimit.engine.DecisionRule.
-- Runs after window.lua. KEYS[1]  the model's hash (see window.lua)
-- ARGV     window ms, model rpm, model tpm, pool rpm, pool tpm, pools enforced (1/0),
--          saturation threshold, pool request field, pool token field, sliding (1/0),
--          token estimate (0: recorded admission, check only)
-- Returns  {refused limit (0 admitted, 1 model requests, 2 model tokens, 3 pool requests,
--          4 pool tokens), model requests, model tokens, pool requests, pool tokens, the same four
--          of the previous window, ms to window end, window end}, the counters as read before
--          this request.
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
local sliding = ARGV[10] == '1'
local estimate = tonumber(ARGV[11])

local now = serverMillis()
local windowEnd = rollWindow(key, now, window, sliding)
local left = windowEnd - now
local read = redis.call('HMGET', key, 'r', 't', poolRequestField, poolTokenField,
    'pr', 'pt', 'p' .. poolRequestField, 'p' .. poolTokenField)
local counts = {}
for i = 1, 8 do
    counts[i] = tonumber(read[i]) or 0
end

-- ceil(previous * left / window) in exact integer steps (Lua numbers are doubles)
local function effective(current, previous)
    if not sliding or previous == 0 then
        return current
    end
    local product = previous * left
    local weighted = math.floor(product / window)
    if weighted * window > product then
        weighted = weighted - 1
    end
    if weighted * window < product then
        weighted = weighted + 1
    end
    return current + weighted
end

local function tokenAllowance(limit)
    if estimate == 0 then
        return limit - 1
    elseif limit == 0 then
        return -1
    end
    return math.max(0, limit - estimate)
end

local requests = effective(counts[1], counts[5])
local tokens = effective(counts[2], counts[6])
local poolRequests = effective(counts[3], counts[7])
local poolTokens = effective(counts[4], counts[8])

local saturation = 0.0
if rpm > 0 then
    saturation = requests / rpm
end
if tpm > 0 then
    saturation = math.max(saturation, tokens / tpm)
end
local strict = enforced and saturation >= threshold

local refused = 0
if rpm > 0 and requests > rpm - 1 then
    refused = 1
elseif tpm > 0 and tokens > tokenAllowance(tpm) then
    refused = 2
elseif strict and rpm > 0 and poolRequests > poolRpm - 1 then
    refused = 3
elseif strict and tpm > 0 and poolTokens > tokenAllowance(poolTpm) then
    refused = 4
end

if refused == 0 then
    redis.call('HINCRBY', key, 'r', 1)
    redis.call('HINCRBY', key, poolRequestField, 1)
    if estimate > 0 then
        redis.call('HINCRBY', key, 't', ARGV[11])
        redis.call('HINCRBY', key, poolTokenField, ARGV[11])
    end
end

return {refused, counts[1], counts[2], counts[3], counts[4], counts[5], counts[6], counts[7], counts[8],
    left, windowEnd}
