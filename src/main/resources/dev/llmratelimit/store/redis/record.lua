-- Adds a response's tokens to the model and pool token counters of the live window, never
-- extending it; starts a window when none is live (same window rule as decide.lua).
-- KEYS[1]  the model's hash (see decide.lua)
-- ARGV     window ms, pool token field, tokens
local key = KEYS[1]
local window = tonumber(ARGV[1])
local poolTokenField = ARGV[2]
local tokens = ARGV[3]

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local windowEnd = tonumber(redis.call('HGET', key, 'e'))
if windowEnd == nil or windowEnd <= now then
    windowEnd = now + window
    redis.call('DEL', key)
    redis.call('HSET', key, 'e', string.format('%d', windowEnd), 't', tokens, poolTokenField, tokens)
    redis.call('PEXPIREAT', key, string.format('%d', windowEnd))
else
    redis.call('HINCRBY', key, 't', tokens)
    redis.call('HINCRBY', key, poolTokenField, tokens)
end
return 1
