-- Finishes one decision of one hash slot, once (see AdmissionStore.settle): reads the request's
-- marker (the window ends admit.lua counted in). Marker 'x' (cancelled): nothing to do. A marker
-- of window ends: records the usage (each group's reservation replaced by it in the window it went
-- into; a group that reserved nothing records in its live window), or, to cancel, takes back
-- requests, reservations and money from the windows that counted them; then releases the slots
-- and deletes the marker. No marker (never applied, already settled, or its lease ended): a cancel
-- leaves the tombstone 'x' (a late admit.lua obeys it); a late settlement records its usage in the
-- live windows; an unanswered one (a request served although its decision got no answer) records
-- the request and its usage in the live windows and leaves the tombstone, so it counts once whether
-- its decision never runs or runs after this; anything else does nothing. Runs after window.lua.
-- A budget's money: the request's reservation is given back unless its lease gave it back
-- already (exactly one ZREM of its member succeeds), and the cost is spent ('m'), once: -1 spends
-- the worst case reserved.
-- KEYS     as admit.lua: the groups' hashes, slot sets and lease sets, then the marker
-- ARGV     request id, lease ms, group count, tokens (-1: keep reservations), micros (-1: keep),
--          cancel (1/0), no record (0 nothing, 1 late, 2 unanswered), then per group (GROUP_ARGS values): hash index, slot set
--          index, lease set index, field suffix, window ms, sliding, period end, increments
--          requests, tokens, micros, counts tokens (1/0), counts money (1/0)
local GROUP_ARGS = 12
local requestId = ARGV[1]
local lease = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local tokens = tonumber(ARGV[4])
local micros = tonumber(ARGV[5])
local cancel = ARGV[6] == '1'
local late = ARGV[7] ~= '0'
local unanswered = ARGV[7] == '2'
local markerKey = KEYS[#KEYS]

local marker = redis.call('GET', markerKey)
if marker == 'x' then
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

local now = serverMillis()

-- The prefix of the window a decision counted in ('' live, 'p' previous), or nil if it no longer counts.
local function countedIn(key, group, windowEnd)
    if group.window == 0 then
        return ''
    end
    local liveEnd = tonumber(redis.call('HGET', key, 'e'))
    if liveEnd == nil then
        return nil
    elseif windowEnd == liveEnd and (now < liveEnd or (group.sliding and now < liveEnd + group.window)) then
        return ''
    elseif group.sliding and windowEnd == liveEnd - group.window and now < liveEnd then
        return 'p'
    end
    return nil
end

local function liveWindow(key, group)
    if group.window > 0 then
        rollWindow(key, now, group.window, group.sliding)
    else
        redis.call('PEXPIREAT', key, string.format('%d', group.periodEnd + lease))
    end
    return ''
end

for i = 1, n do
    local base = 7 + (i - 1) * GROUP_ARGS
    local group = {
        hash = tonumber(ARGV[base + 1]), slots = tonumber(ARGV[base + 2]), leases = tonumber(ARGV[base + 3]),
        suffix = ARGV[base + 4],
        window = tonumber(ARGV[base + 5]), sliding = ARGV[base + 6] == '1', periodEnd = tonumber(ARGV[base + 7]),
        incReq = tonumber(ARGV[base + 8]), incTok = tonumber(ARGV[base + 9]), incMic = tonumber(ARGV[base + 10]),
        countsTokens = ARGV[base + 11] == '1', countsMoney = ARGV[base + 12] == '1'
    }
    if group.slots > 0 then
        redis.call('ZREM', KEYS[group.slots], requestId)
    end
    if group.hash > 0 then
        local key = KEYS[group.hash]
        local s = group.suffix
        local applied = marker ~= false and marker ~= nil
        local counted = nil
        if applied then
            counted = countedIn(key, group, ends[i])
        end
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
            if counted ~= nil then
                addClamped(key, counted .. 'r' .. s, -group.incReq)
                addClamped(key, counted .. 't' .. s, -group.incTok)
            end
        elseif applied or not unanswered then
            local reservedTok = applied and group.incTok or 0
            if group.countsTokens and tokens >= 0 then
                local target = counted
                if reservedTok == 0 then
                    target = liveWindow(key, group)
                end
                if target ~= nil then
                    addClamped(key, target .. 't' .. s, tokens - reservedTok)
                end
            end
        else
            liveWindow(key, group)
            addClamped(key, 'r' .. s, group.incReq)
            local used = group.incTok
            if group.countsTokens and tokens >= 0 then
                used = tokens
            end
            addClamped(key, 't' .. s, used)
        end
    end
end
if marker then
    redis.call('DEL', markerKey)
elseif unanswered then
    redis.call('SET', markerKey, 'x', 'PX', lease)
end
return 1
