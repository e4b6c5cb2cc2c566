-- Adds tokens (negative: takes them back, never below zero) to the model and pool token counters
-- of one window, never extending it. Runs after window.lua.
-- KEYS[1]  the model's hash (see window.lua)
-- ARGV     window ms, pool token field, tokens, target window end (0: the live window, started
--          when none is live), sliding (1/0)
-- A target window that no longer counts (a fixed window that ended, a sliding window that left
-- the sliding span) is left alone: a late correction never lands in another window.
local key = KEYS[1]
local window = tonumber(ARGV[1])
local poolTokenField = ARGV[2]
local tokens = ARGV[3]
local target = tonumber(ARGV[4])
local sliding = ARGV[5] == '1'

local now = serverMillis()
if target == 0 then
    rollWindow(key, now, window, sliding)
    addClamped(key, 't', tokens)
    addClamped(key, poolTokenField, tokens)
    return 1
end

local windowEnd = tonumber(redis.call('HGET', key, 'e'))
local prefix
if windowEnd == nil then
    return 0
elseif target == windowEnd and (now < windowEnd or (sliding and now < windowEnd + window)) then
    prefix = ''
elseif sliding and target == windowEnd - window and now < windowEnd then
    prefix = 'p'
else
    return 0
end
addClamped(key, prefix .. 't', tokens)
addClamped(key, prefix .. poolTokenField, tokens)
return 1
