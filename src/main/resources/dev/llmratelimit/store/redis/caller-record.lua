-- Adds a response's tokens to the token counters of the live windows, starting one where none is live.
-- KEYS     the hashes of the counters that limit tokens
-- ARGV     window ms, tokens
local window = tonumber(ARGV[1])
local tokens = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
for i = 1, #KEYS do
    local windowEnd = tonumber(redis.call('HGET', KEYS[i], 'e'))
    if windowEnd == nil or windowEnd <= now then
        windowEnd = now + window
        redis.call('DEL', KEYS[i])
        redis.call('HSET', KEYS[i], 'e', string.format('%d', windowEnd), 'r', 0, 't', tokens)
        redis.call('PEXPIREAT', KEYS[i], string.format('%d', windowEnd))
    else
        redis.call('HINCRBY', KEYS[i], 't', tokens)
    end
end
return 0
