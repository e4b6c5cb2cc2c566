-- The window rule shared by decide.lua and record.lua (RedisCounterStore runs each with this file
-- in front of it), the same as MemoryCounterStore's. KEYS[1] is the model's hash: e = end of the
-- live window (ms, server clock); r, t, r:<pool>, t:<pool> = its request and token counters;
-- the same names with a 'p' in front = the previous window's (sliding windows only).

local function serverMillis()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- Starts the window 'now' lies in when the live one has ended: a sliding window follows on from
-- the one before while that is still inside the sliding span, its counters becoming the previous
-- ones; otherwise the new window starts now. Returns the live window's end.
local function rollWindow(key, now, window, sliding)
    local windowEnd = tonumber(redis.call('HGET', key, 'e'))
    if windowEnd ~= nil and now < windowEnd then
        return windowEnd
    end
    local previous = {}
    if sliding and windowEnd ~= nil and now < windowEnd + window then
        local fields = redis.call('HGETALL', key)
        for i = 1, #fields, 2 do
            local first = string.sub(fields[i], 1, 1)
            if first == 'r' or first == 't' then
                previous[#previous + 1] = 'p' .. fields[i]
                previous[#previous + 1] = fields[i + 1]
            end
        end
        windowEnd = windowEnd + window
    else
        windowEnd = now + window
    end
    redis.call('DEL', key)
    redis.call('HSET', key, 'e', string.format('%d', windowEnd), unpack(previous))
    local expiresAt = windowEnd
    if sliding then
        expiresAt = windowEnd + window
    end
    redis.call('PEXPIREAT', key, string.format('%d', expiresAt))
    return windowEnd
end

-- Adds a (possibly negative) count to a counter, never taking it below zero.
local function addClamped(key, field, count)
    if redis.call('HINCRBY', key, field, count) < 0 then
        redis.call('HSET', key, field, 0)
    end
end
