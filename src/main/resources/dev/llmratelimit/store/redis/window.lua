-- The window rule shared by admit.lua and settle.lua (RedisAdmissionStore runs each with this file
-- in front of it), the same as MemoryAdmissionStore's. A window holder is one hash: e = end of the
-- live window (ms, server clock); <letter><suffix> = a group's counter of one windowed dimension
-- (letters r requests, t tokens, i input tokens, o output tokens; a model's own suffix is '', a
-- pool's ':<pool>'); m<suffix> = micro-dollars of a budget period; a counter's name with a 'p' in
-- front = the previous window's (sliding windows only); w = the length of a live window a
-- settlement started (it is provisional: the next decision gives the window its own length); x =
-- when the hash expires (ms), so that a decision under a longer or sliding window (after a reload)
-- sees that its counts must last longer.

-- Every figure a script adds stays at most CAP (2^50, as Saturating.CAP in Java): Lua numbers are
-- doubles, exact below 2^53, and HINCRBY of two such figures never overflows.
local CAP = 1125899906842624

local function serverMillis()
    local time = redis.call('TIME')
    return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- When a window's counts stop counting: at its end, a sliding one's a window later.
local function expiryOf(windowEnd, window, sliding)
    if sliding then
        return windowEnd + window
    end
    return windowEnd
end

-- The hash goes at expiresAt, which it keeps as x.
local function expireAt(key, expiresAt)
    local at = string.format('%d', expiresAt)
    redis.call('HSET', key, 'x', at)
    redis.call('PEXPIREAT', key, at)
end

-- Starts the window 'now' lies in, given the live window's end as read (nil: none; the caller
-- rolls only when 'now' is at or past it): a sliding window follows on from the one before while
-- that is still inside the sliding span, its counters becoming the previous ones; otherwise the new
-- window starts now. A settlement starts it 'provisional' (w, see above). Returns the new window's
-- end and whether the old counters became the previous.
local function rollWindow(key, now, window, sliding, windowEnd, provisional)
    local previous = {}
    local follows = sliding and windowEnd ~= nil and now < windowEnd + window
    if follows then
        local fields = redis.call('HGETALL', key)
        for i = 1, #fields, 2 do
            local first = string.sub(fields[i], 1, 1)
            if first == 'r' or first == 't' or first == 'i' or first == 'o' then
                previous[#previous + 1] = 'p' .. fields[i]
                previous[#previous + 1] = fields[i + 1]
            end
        end
        windowEnd = windowEnd + window
    else
        windowEnd = now + window
    end
    if provisional then
        previous[#previous + 1] = 'w'
        previous[#previous + 1] = string.format('%d', window)
    end
    local expiresAt = string.format('%d', expiryOf(windowEnd, window, sliding))
    redis.call('DEL', key)
    redis.call('HSET', key, 'e', string.format('%d', windowEnd), 'x', expiresAt, unpack(previous))
    redis.call('PEXPIREAT', key, expiresAt)
    return windowEnd, follows
end

-- A live window a settlement started ('provisional' ms long) takes the deciding plan's length, keeping
-- its start: a settlement of a request decided before a reload changed the window does not set how
-- long a window lasts. Returns the window's end.
local function adoptLength(key, windowEnd, provisional, window, sliding)
    redis.call('HDEL', key, 'w')
    local adopted = windowEnd - provisional + window
    if adopted ~= windowEnd then
        redis.call('HSET', key, 'e', string.format('%d', adopted))
        expireAt(key, expiryOf(adopted, window, sliding))
    end
    return adopted
end

-- Whether a window that ends at windowEnd (nil: none) must be rolled at 'now'.
local function mustRoll(now, windowEnd)
    return windowEnd == nil or now >= windowEnd
end

-- A counter plus a (possibly negative) count, never below zero or above CAP.
local function clamped(value, count)
    return math.max(0, math.min(CAP, value + count))
end

-- Adds a (possibly negative) count to a counter, never taking it below zero or above CAP.
local function addClamped(key, field, count)
    if count == 0 then
        return
    end
    local value = redis.call('HINCRBY', key, field, string.format('%d', count))
    if value < 0 then
        redis.call('HSET', key, field, 0)
    elseif value > CAP then
        redis.call('HSET', key, field, string.format('%d', CAP))
    end
end

-- ceil(previous * left / window), exact in integer steps while the product is exact as a double;
-- beyond, the same rounding as PlanRule.weighted in Java.
local function weighted(previous, left, window)
    if left <= 0 or previous == 0 then
        return 0
    end
    local product = previous * left
    if product > 9007199254740992 then
        return math.ceil(previous / window * left)
    end
    local result = math.floor(product / window)
    if result * window > product then
        result = result - 1
    end
    if result * window < product then
        result = result + 1
    end
    return result
end
