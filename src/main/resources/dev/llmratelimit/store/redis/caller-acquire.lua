-- One per-caller acquisition: checks every counter, then (only if all pass) counts the request and
-- takes a parallel slot, all or nothing. The same checks as MemoryCallerLimitStore.
-- KEYS     per counter i: KEYS[2i-1] its hash (e = window end ms, r = requests, t = tokens),
--          KEYS[2i] its slots (sorted set: slot id scored by lease end ms)
-- ARGV     window ms, lease ms, slot id, then per counter: rpm limit, tpm limit, max parallel (0 = none)
-- Returns  admitted: {0, window end of each counter (0 for a counter without window)};
--          refused:  {counter index (1-based), limit type (1 requests, 2 tokens, 3 parallel),
--                     limit, current, ms to window end (0 for parallel)}
local window = tonumber(ARGV[1])
local lease = tonumber(ARGV[2])
local slot = ARGV[3]
local n = #KEYS / 2

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)

local rpms, tpms, parallels, ends = {}, {}, {}, {}
for i = 1, n do
    local rpm = tonumber(ARGV[3 * i + 1])
    local tpm = tonumber(ARGV[3 * i + 2])
    local parallel = tonumber(ARGV[3 * i + 3])
    rpms[i], tpms[i], parallels[i], ends[i] = rpm, tpm, parallel, 0
    local requests, tokens, reset = 0, 0, 0
    if rpm > 0 or tpm > 0 then
        local read = redis.call('HMGET', KEYS[2 * i - 1], 'e', 'r', 't')
        local windowEnd = tonumber(read[1])
        if windowEnd ~= nil and windowEnd > now then
            requests = tonumber(read[2]) or 0
            tokens = tonumber(read[3]) or 0
            reset = windowEnd - now
            ends[i] = windowEnd
        end
    end
    if rpm > 0 and requests + 1 > rpm then
        return {i, 1, rpm, requests, reset}
    end
    if tpm > 0 and tokens >= tpm then
        return {i, 2, tpm, tokens, reset}
    end
    if parallel > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[2 * i], '-inf', now)
        local inFlight = redis.call('ZCARD', KEYS[2 * i])
        if inFlight + 1 > parallel then
            return {i, 3, parallel, inFlight, 0}
        end
    end
end

local result = {0}
for i = 1, n do
    local hash = KEYS[2 * i - 1]
    if rpms[i] > 0 or tpms[i] > 0 then
        if ends[i] == 0 then
            ends[i] = now + window
            redis.call('DEL', hash)
            redis.call('HSET', hash, 'e', string.format('%d', ends[i]), 'r', 1)
            redis.call('PEXPIREAT', hash, string.format('%d', ends[i]))
        else
            redis.call('HINCRBY', hash, 'r', 1)
        end
    end
    if parallels[i] > 0 then
        redis.call('ZADD', KEYS[2 * i], string.format('%d', now + lease), slot)
        -- Every slot in the set ends no later than this one: the set goes when its last lease does.
        redis.call('PEXPIRE', KEYS[2 * i], lease)
    end
    result[i + 1] = ends[i]
end
return result
