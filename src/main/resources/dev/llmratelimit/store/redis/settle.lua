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
-- Counters: each hash is read once (HMGET of its window end, every field the settlement changes and,
-- in a sliding window, their previous window's) and written once (HSET); the clock is read only
-- when a window must be started.
-- A budget's money: the request's reservation is given back unless its lease gave it back
-- already (exactly one ZREM of its member succeeds), and the cost is spent ('m'), once: -1 spends
-- the worst case reserved.
-- KEYS     as admit.lua: the groups' hashes, slot sets and lease sets, then the marker
-- ARGV     one MessagePack array (decoded into ARGS): request id, lease ms, group count, micros (-1:
--          keep), cancel (1/0), no record (0 nothing, 1 late, 2 unanswered), then per group: hash
--          index, slot set index, lease set index, field suffix, window ms, sliding, period end,
--          increments micros, counts money (1/0), the end of the window the decision counted in
--          (0: not known), then the number of its windowed dimensions and per dimension: its
--          counter's field (letter and suffix), increment, settles (1/0: the usage replaces the
--          increment), usage (-1: keep the increment)
local call, tonumber, unpack = redis.call, tonumber, unpack
local ARGS = cmsgpack.unpack(ARGV[1])
local requestId = ARGS[1]
local lease = ARGS[2]
local n = ARGS[3]
local micros = ARGS[4]
local cancel = ARGS[5] == 1
local late = ARGS[6] ~= 0
local unanswered = ARGS[6] == 2
local markerKey = KEYS[#KEYS]

local marker = call('GETDEL', markerKey)
if marker == 'x' then
    call('SET', markerKey, 'x', 'PX', lease)        -- the tombstone stays for a late admit.lua
    return 0
end
if not marker and cancel then
    call('SET', markerKey, 'x', 'PX', lease)
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

-- A group's arguments are ARGS[at + 1] ...: hash index, slot set index, lease set index, suffix,
-- window ms, sliding, period end, increments micros, counts money, counted window's end, dimension
-- count, then 4 per dimension. The prefix of the window the decision counted the group at 'at' in
-- ('' live, 'p' previous), given the live window's end (nil: none), or nil if it no longer counts.
-- With the counted window's end known, only that window; else the one window of the group's length
-- that ended in (decidedAt, decidedAt + window] (ambiguous only if a reload changed the length since).
-- A window whose end has passed but that no decision rolled yet still holds its counts: the next
-- roll keeps them (sliding) or drops them, as it would have without this settlement.
local function countedIn(at, liveEnd)
    if liveEnd == nil then
        return nil
    end
    local window = ARGS[at + 5]
    local counted = ARGS[at + 10]
    if counted > 0 then
        if liveEnd == counted then
            return ''
        end
        if ARGS[at + 6] == 1 and liveEnd - window == counted then
            return 'p'
        end
        return nil
    end
    if decidedAt == nil then
        return nil
    end
    if liveEnd > decidedAt and liveEnd <= decidedAt + window then
        return ''
    end
    local previousEnd = liveEnd - window
    if ARGS[at + 6] == 1 and previousEnd > decidedAt and previousEnd <= decidedAt + window then
        return 'p'
    end
    return nil
end

-- Per hash index, in order of first use: the counter changes the settlement makes, four entries
-- each (the group's offset 'at', field, count, live): live ones go into the live window (started if
-- none is), the others into the window the decision counted in. Every group with counters but no
-- money counts in a rolling window.
local changes = {}
local changeOrder = {}
local function change(index, at, field, count, live)
    local list = changes[index]
    if list == nil then
        list = {}
        changes[index] = list
        changeOrder[#changeOrder + 1] = index
    end
    local c = #list
    list[c + 1] = at
    list[c + 2] = field
    list[c + 3] = count
    list[c + 4] = live
end

local applied = marker ~= false and marker ~= nil
local a = 6
for i = 1, n do
    local at = a
    local hash = ARGS[at + 1]
    local slots = ARGS[at + 2]
    local dims = ARGS[at + 11]
    a = a + 11 + 4 * dims
    if slots > 0 then
        call('ZREM', KEYS[slots], requestId)
    end
    if hash > 0 then
        local key = KEYS[hash]
        local s = ARGS[at + 4]
        local incMic = ARGS[at + 8]
        if ARGS[at + 9] == 1 then
            local leases = ARGS[at + 3]
            if leases > 0 and incMic > 0
                and call('ZREM', KEYS[leases], string.format('%d', incMic) .. ':' .. requestId) == 1 then
                addClamped(key, 'mr' .. s, -incMic)
            end
            if not cancel then
                local spent = micros
                if spent < 0 then
                    spent = incMic
                end
                -- a budget's period: its hash lives to the period's end plus the lease
                call('PEXPIREAT', key, string.format('%d', ARGS[at + 7] + lease))
                addClamped(key, 'm' .. s, spent)
            end
        else
            -- per dimension: field, increment, settles, usage
            for d = at + 12, at + 8 + 4 * dims, 4 do
                local inc = ARGS[d + 1]
                local usage = ARGS[d + 3]
                local settled = ARGS[d + 2] == 1 and usage >= 0
                if cancel then
                    if applied then
                        change(hash, at, ARGS[d], -inc, false)
                    end
                elseif applied or not unanswered then
                    local reserved = 0
                    if applied then
                        reserved = inc
                    end
                    if settled then
                        change(hash, at, ARGS[d], usage - reserved, reserved == 0)
                    end
                elseif settled then
                    change(hash, at, ARGS[d], usage, true)
                else
                    change(hash, at, ARGS[d], inc, true)
                end
            end
        end
    end
end

-- Each rolling hash: one HMGET, a roll if a live change finds the window ended, one HSET.
for o = 1, #changeOrder do
    local index = changeOrder[o]
    local key = KEYS[index]
    local list = changes[index]
    local firstAt = list[1]
    local sliding = ARGS[firstAt + 6] == 1
    local fields = {'e'}
    local needsLive = false
    for c = 1, #list, 4 do
        fields[#fields + 1] = list[c + 1]
        if sliding then
            fields[#fields + 1] = 'p' .. list[c + 1]
        end
        needsLive = needsLive or list[c + 3]
    end
    local read = call('HMGET', key, unpack(fields))
    local liveEnd = tonumber(read[1])
    local values = {}
    for f = 2, #fields do
        values[fields[f]] = tonumber(read[f]) or 0
    end
    if needsLive and mustRoll(clock(), liveEnd) then
        local follows
        liveEnd, follows = rollWindow(key, clock(), ARGS[firstAt + 5], sliding, liveEnd, true)
        -- the live counters read before the roll are now the previous window's (or gone)
        if sliding then
            for f = 2, #fields, 2 do
                if follows then
                    values[fields[f + 1]] = values[fields[f]]
                else
                    values[fields[f + 1]] = 0
                end
                values[fields[f]] = 0
            end
        else
            for f = 2, #fields do
                values[fields[f]] = 0
            end
        end
    end
    -- field and value pairs, each field once, in the order of its first change
    local written = {}
    local w = 0
    local seen = {}
    for c = 1, #list, 4 do
        local prefix = ''
        if not list[c + 3] then
            prefix = countedIn(list[c], liveEnd)
        end
        local count = list[c + 2]
        if prefix ~= nil and count ~= 0 then
            local field = prefix .. list[c + 1]
            values[field] = clamped(values[field], count)
            if not seen[field] then
                seen[field] = true
                written[w + 1] = field
                written[w + 2] = ''
                w = w + 2
            end
        end
    end
    if w > 0 then
        for v = 2, w, 2 do
            written[v] = string.format('%d', values[written[v - 1]])
        end
        call('HSET', key, unpack(written))
    end
end
if not marker then
    call('SET', markerKey, 'x', 'PX', lease)     -- a late or unanswered one, sent again, counts nothing
end
return 1
