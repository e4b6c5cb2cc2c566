-- Finishes one decision of one hash slot, once (see AdmissionStore.settle): takes the request's
-- marker (GETDEL: the time admit.lua decided at). Marker 'x' (cancelled): nothing to do. A marker of
-- a time: records the usage (each group's reservation replaced by it in the window it went into; a
-- group that reserved nothing records in its live window), or, to cancel, takes back requests,
-- reservations and money from the windows that counted them; then releases the slots.
-- No marker (never applied, already settled, or its lease ended): a cancel leaves the tombstone 'x'
-- (a late admit.lua obeys it); a late settlement records its usage in the live windows; an
-- unanswered one (a request served although its decision got no answer) records the request and its
-- usage in the live windows. Both leave the tombstone, so each counts once however often it is sent,
-- and an unanswered one whether its decision never runs or runs after it; anything else does
-- nothing. Runs after window.lua.
-- Counters: each hash is read once (HMGET of its window end and every field the settlement changes)
-- and written once (HSET); the clock is read only when a window must be started.
-- A budget's money: the request's reservation is given back unless its lease gave it back
-- already (exactly one ZREM of its member succeeds), and the cost is spent ('m'), once: -1 spends
-- the worst case reserved.
-- KEYS     as admit.lua: the groups' hashes, slot sets and lease sets, then the marker
-- ARGV     request id, lease ms, group count, micros (-1: keep), cancel (1/0), no record (0 nothing,
--          1 late, 2 unanswered), then per group: hash index, slot set index, lease set index,
--          field suffix, window ms, sliding, period end, increments micros, counts money (1/0),
--          then the number of its windowed dimensions and per dimension: field letter, increment,
--          settles (1/0: the usage replaces the increment), usage (-1: keep the increment)
local ARGS = cjson.decode(ARGV[1])
local requestId = ARGS[1]
local lease = ARGS[2]
local n = ARGS[3]
local micros = ARGS[4]
local cancel = ARGS[5] == 1
local late = ARGS[6] ~= 0
local unanswered = ARGS[6] == 2
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
local decidedAt = tonumber(marker)

-- The server's clock, read only by the settlements that start a window.
local now = nil
local function clock()
    if now == nil then
        now = serverMillis()
    end
    return now
end

-- The prefix of the window the decision counted a group in ('' live, 'p' previous), given the live
-- window's end (nil: none), or nil if it no longer counts. The decision counted in the one window of
-- the group's length that ended in (decidedAt, decidedAt + window]; a window whose end has passed
-- but that no decision rolled yet still holds its counts: the next roll keeps them (sliding) or
-- drops them, as it would have without this settlement.
local function countedIn(group, liveEnd)
    if liveEnd == nil or decidedAt == nil then
        return nil
    end
    local function isCounted(windowEnd)
        return windowEnd > decidedAt and windowEnd <= decidedAt + group.window
    end
    if isCounted(liveEnd) then
        return ''
    elseif group.sliding and isCounted(liveEnd - group.window) then
        return 'p'
    end
    return nil
end

-- A budget's period: its hash lives to the period's end plus the lease.
local function keepPeriod(key, group)
    redis.call('PEXPIREAT', key, string.format('%d', group.periodEnd + lease))
end

-- Per hash, in order of first use: the counter changes the settlement makes, each {group, field,
-- count, live}: live ones go into the live window (started if none is), the others into the window
-- the decision counted in. Every group with counters but no money counts in a rolling window.
local changes = {}
local changeOrder = {}
local function change(key, group, field, count, live)
    if changes[key] == nil then
        changes[key] = {}
        changeOrder[#changeOrder + 1] = key
    end
    local list = changes[key]
    list[#list + 1] = {group = group, field = field, count = count, live = live}
end

local applied = marker ~= false and marker ~= nil
local a = 6
for i = 1, n do
    local group = {
        hash = ARGS[a + 1], slots = ARGS[a + 2], leases = ARGS[a + 3],
        suffix = ARGS[a + 4],
        window = ARGS[a + 5], sliding = ARGS[a + 6] == 1, periodEnd = ARGS[a + 7],
        incMic = ARGS[a + 8], countsMoney = ARGS[a + 9] == 1, dims = {}
    }
    local count = ARGS[a + 10]
    a = a + 10
    for d = 1, count do
        group.dims[d] = {field = ARGS[a + 1], inc = ARGS[a + 2], settles = ARGS[a + 3] == 1,
            usage = ARGS[a + 4]}
        a = a + 4
    end
    if group.slots > 0 then
        redis.call('ZREM', KEYS[group.slots], requestId)
    end
    if group.hash > 0 then
        local key = KEYS[group.hash]
        local s = group.suffix
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
                keepPeriod(key, group)
                addClamped(key, 'm' .. s, spent)
            end
        elseif cancel then
            if applied then
                for _, dim in ipairs(group.dims) do
                    change(key, group, dim.field .. s, -dim.inc, false)
                end
            end
        elseif applied or not unanswered then
            for _, dim in ipairs(group.dims) do
                local reserved = applied and dim.inc or 0
                if dim.settles and dim.usage >= 0 then
                    change(key, group, dim.field .. s, dim.usage - reserved, reserved == 0)
                end
            end
        else
            for _, dim in ipairs(group.dims) do
                local used = dim.inc
                if dim.settles and dim.usage >= 0 then
                    used = dim.usage
                end
                change(key, group, dim.field .. s, used, true)
            end
        end
    end
end

-- Each rolling hash: one HMGET, a roll if a live change finds the window ended, one HSET.
for _, key in ipairs(changeOrder) do
    local list = changes[key]
    local first = list[1].group
    local fields = {'e'}
    local needsLive = false
    for _, c in ipairs(list) do
        fields[#fields + 1] = c.field
        fields[#fields + 1] = 'p' .. c.field
        needsLive = needsLive or c.live
    end
    local read = redis.call('HMGET', key, unpack(fields))
    local liveEnd = tonumber(read[1])
    local values = {}
    for f = 2, #fields do
        values[fields[f]] = tonumber(read[f]) or 0
    end
    if needsLive and mustRoll(clock(), liveEnd) then
        local follows
        liveEnd, follows = rollWindow(key, clock(), first.window, first.sliding, liveEnd)
        -- the live counters read before the roll are now the previous window's (or gone)
        for f = 2, #fields, 2 do
            if follows then
                values[fields[f + 1]] = values[fields[f]]
            else
                values[fields[f + 1]] = 0
            end
            values[fields[f]] = 0
        end
    end
    local written = {}
    local changed = {}
    for _, c in ipairs(list) do
        local prefix = ''
        if not c.live then
            prefix = countedIn(c.group, liveEnd)
        end
        if prefix ~= nil and c.count ~= 0 then
            local field = prefix .. c.field
            values[field] = clamped(values[field], c.count)
            if not written[field] then
                written[field] = true
                changed[#changed + 1] = field
            end
        end
    end
    if #changed > 0 then
        local args = {}
        for _, field in ipairs(changed) do
            args[#args + 1] = field
            args[#args + 1] = string.format('%d', values[field])
        end
        redis.call('HSET', key, unpack(args))
    end
end
if not marker then
    redis.call('SET', markerKey, 'x', 'PX', lease)     -- a late or unanswered one, sent again, counts nothing
end
return 1
