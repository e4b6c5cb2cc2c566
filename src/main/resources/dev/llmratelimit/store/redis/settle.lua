-- Finishes one decision of one hash slot, once (see AdmissionStore.settle): takes the request's
-- marker (GETDEL: the window ends admit.lua counted in). Marker 'x' (cancelled): nothing to do. A
-- marker of window ends: records the usage (each group's reservation replaced by it in the window it
-- went into; a group that reserved nothing records in its live window), or, to cancel, takes back
-- requests, reservations and money from the windows that counted them; then releases the slots.
-- No marker (never applied, already settled, or its lease ended): a cancel leaves the tombstone 'x'
-- (a late admit.lua obeys it); a late settlement records its usage in the live windows; an
-- unanswered one (a request served although its decision got no answer) records the request and its
-- usage in the live windows. Both leave the tombstone, so each counts once however often it is sent,
-- and an unanswered one whether its decision never runs or runs after it; anything else does
-- nothing. Runs after window.lua.
-- A budget's money: the request's reservation is given back unless its lease gave it back
-- already (exactly one ZREM of its member succeeds), and the cost is spent ('m'), once: -1 spends
-- the worst case reserved.
-- KEYS     as admit.lua: the groups' hashes, slot sets and lease sets, then the marker
-- ARGV     request id, lease ms, group count, micros (-1: keep), cancel (1/0), no record (0 nothing,
--          1 late, 2 unanswered), then per group: hash index, slot set index, lease set index,
--          field suffix, window ms, sliding, period end, increments micros, counts money (1/0),
--          then the number of its windowed dimensions and per dimension: field letter, increment,
--          settles (1/0: the usage replaces the increment), usage (-1: keep the increment)
local requestId = ARGV[1]
local lease = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local micros = tonumber(ARGV[4])
local cancel = ARGV[5] == '1'
local late = ARGV[6] ~= '0'
local unanswered = ARGV[6] == '2'
local markerKey = KEYS[#KEYS]

local marker = redis.call('GETDEL', markerKey)
if marker == 'x' then
    redis.call('SET', markerKey, 'x', 'PX', lease)        -- the tombstone stays for a late admit.lua
    return 0
end
if not marker and cancel then
    redis.call('SET', markerKey, 'x', 'PX', lease)
    return 0
end
if not marker and not late then
    return 0
end
local ends = {}
if marker then
    for value in string.gmatch(marker, '[^,]+') do
        ends[#ends + 1] = tonumber(value)
    end
end

-- The server's clock, read only by the settlements that start a window.
local now = nil
local function clock()
    if now == nil then
        now = serverMillis()
    end
    return now
end

-- Each rolling hash's live window end, read once per hash (nil: no live window).
local liveEnds = {}
local function liveEndOf(key)
    if liveEnds[key] == nil then
        liveEnds[key] = {value = tonumber(redis.call('HGET', key, 'e'))}
    end
    return liveEnds[key].value
end

-- The prefix of the window a decision counted in ('' live, 'p' previous), or nil if it no longer
-- counts. A window whose end has passed but that no decision rolled yet still holds its counts: the
-- next roll keeps them (sliding) or drops them, as it would have without this settlement.
local function countedIn(key, group, windowEnd)
    if group.window == 0 then
        return ''
    end
    local liveEnd = liveEndOf(key)
    if liveEnd == nil then
        return nil
    elseif windowEnd == liveEnd then
        return ''
    elseif group.sliding and windowEnd == liveEnd - group.window then
        return 'p'
    end
    return nil
end

local function liveWindow(key, group)
    if group.window > 0 then
        local windowEnd = liveEndOf(key)
        if mustRoll(clock(), windowEnd) then
            liveEnds[key] = {value = rollWindow(key, clock(), group.window, group.sliding, windowEnd)}
        end
    else
        redis.call('PEXPIREAT', key, string.format('%d', group.periodEnd + lease))
    end
    return ''
end

local a = 6
for i = 1, n do
    local group = {
        hash = tonumber(ARGV[a + 1]), slots = tonumber(ARGV[a + 2]), leases = tonumber(ARGV[a + 3]),
        suffix = ARGV[a + 4],
        window = tonumber(ARGV[a + 5]), sliding = ARGV[a + 6] == '1', periodEnd = tonumber(ARGV[a + 7]),
        incMic = tonumber(ARGV[a + 8]), countsMoney = ARGV[a + 9] == '1', dims = {}
    }
    local count = tonumber(ARGV[a + 10])
    a = a + 10
    for d = 1, count do
        group.dims[d] = {field = ARGV[a + 1], inc = tonumber(ARGV[a + 2]), settles = ARGV[a + 3] == '1',
            usage = tonumber(ARGV[a + 4])}
        a = a + 4
    end
    if group.slots > 0 then
        redis.call('ZREM', KEYS[group.slots], requestId)
    end
    if group.hash > 0 then
        local key = KEYS[group.hash]
        local s = group.suffix
        local applied = marker ~= false and marker ~= nil
        if group.countsMoney then
            if group.leases > 0 and group.incMic > 0
                and redis.call('ZREM', KEYS[group.leases], string.format('%d', group.incMic) .. ':' .. requestId) == 1 then
                addClamped(key, 'mr' .. s, -group.incMic)
            end
            if not cancel then
                local spent = micros
                if spent < 0 then
                    spent = group.incMic
                end
                liveWindow(key, group)
                addClamped(key, 'm' .. s, spent)
            end
        elseif cancel then
            local counted = applied and countedIn(key, group, ends[i]) or nil
            if counted ~= nil then
                for _, dim in ipairs(group.dims) do
                    addClamped(key, counted .. dim.field .. s, -dim.inc)
                end
            end
        elseif applied or not unanswered then
            for _, dim in ipairs(group.dims) do
                local reserved = applied and dim.inc or 0
                if dim.settles and dim.usage >= 0 then
                    local target
                    if reserved == 0 then
                        target = liveWindow(key, group)
                    else
                        target = countedIn(key, group, ends[i])
                    end
                    if target ~= nil then
                        addClamped(key, target .. dim.field .. s, dim.usage - reserved)
                    end
                end
            end
        else
            liveWindow(key, group)
            for _, dim in ipairs(group.dims) do
                local used = dim.inc
                if dim.settles and dim.usage >= 0 then
                    used = dim.usage
                end
                addClamped(key, dim.field .. s, used)
            end
        end
    end
end
if not marker then
    redis.call('SET', markerKey, 'x', 'PX', lease)     -- a late or unanswered one, sent again, counts nothing
end
return 1
