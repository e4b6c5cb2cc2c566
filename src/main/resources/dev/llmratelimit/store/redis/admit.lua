-- One decision for every counter group of one hash slot (docs/admission.md), the same
-- rule as dev.llmratelimit.engine.PlanRule: read every group, compute the saturation (the highest
-- use over every model group's limits), check every enforced limit in order, and only if all pass
-- apply every group's increments; the request id's marker keeps the decision's time.
-- Runs after window.lua.
-- KEYS     the groups' hashes, slot sets and lease sets, then last the request's marker
-- ARGV     one MessagePack array (decoded into ARGS): request id, lease ms, group count, then
--          per group: hash index in KEYS (0: none), slot set index (0: none), lease set index (0:
--          none), field suffix, window ms (0: a period or no window), sliding (1/0), period end ms
--          (0: none), model group (1/0), limits parallel, micros (-1: none), enforcement (0 always,
--          1 when the model is saturated, 2 tracked), threshold, increments micros, slot (1/0), then
--          the number of its windowed dimensions and per dimension: its counter's field (letter and
--          suffix), limit (-1: none; a work-conserving pool's: the model's), increment; then the
--          number of the model's pools for a work-conserving pool (else 0) and if any: the activity
--          hash's index in KEYS, this pool's place (1-based), each pool's name and share
-- Returns  {refused group (0 admitted, -1 the request id was already decided or cancelled),
--          refused dimension (1 requests, 2 tokens, 3 input tokens, 4 output tokens, 5 parallel,
--          6 money), then per group: per windowed dimension its count and the previous window's,
--          then micros spent, micros reserved, slots in flight, ms left, window end, and for a
--          work-conserving pool per pool 1 if it was active, else 0}
-- A budget's reservations whose lease ended are given back first, at most SWEEP per budget and
-- decision (every decision on the budget sweeps, so they never pile up).
-- Cost: the arguments come as one MessagePack array (one argument is cheaper to send than forty,
-- and cmsgpack.unpack makes its numbers numbers in C); a group is one Lua array (below), its other
-- arguments read where they are used, only when the group has what they describe. Counter fields
-- come whole in the arguments, library functions are locals and loops numeric: each string built,
-- global looked up or iterator called is interpreted work on every decision.
local call, tonumber, unpack, max, min, floor = redis.call, tonumber, unpack, math.max, math.min, math.floor
local SWEEP = 64
local PARALLEL = 5
local MONEY = 6
local ARGS = cmsgpack.unpack(ARGV[1])
local requestId = ARGS[1]
local lease = ARGS[2]
local n = ARGS[3]
local marker = KEYS[#KEYS]

-- The marker is claimed first: NX refuses a request id already decided or cancelled, and as the
-- script's first write it is the one Redis refuses when full (maxmemory is checked at a script's
-- first write only), so a full Redis fails the decision before anything is counted. It holds the
-- decision's time: each group counted in the one window of its length that ends in
-- (now, now + window], which is how settle.lua finds it again.
local now = serverMillis()
if not call('SET', marker, string.format('%d', now), 'NX', 'PX', string.format('%d', lease)) then
    return {-1, 0}
end

-- A group: an array holding at these indexes the offset of its arguments (they are ARGS[at + 1]
-- ...), window ms, sliding, money (counts m and mr), the offset of its pools' arguments (0: a fixed
-- share), the figures read (micros spent and reserved, slots in flight, ms left, window end), then
-- per windowed dimension after DIMS: its count, the previous window's, its limit, its increment and
-- its field.
local AT, WINDOW, SLIDING, HAS_MONEY, POOLS, M, MR, IN_FLIGHT, LEFT, WINDOW_END = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
local DIMS = 10
local REQUESTS_FIELD = 114 -- the byte of 'r', which starts a requests counter's field
local g = {}
-- the hashes in KEYS order of first use, each with the groups it holds (a model and its pools share one)
local hashes = {}
local hashOrder = {}
local a = 3
for i = 1, n do
    local hash = ARGS[a + 1]
    local leases = ARGS[a + 3]
    local window = ARGS[a + 5]
    local money = ARGS[a + 10] >= 0 or leases > 0
    local group = {a, window, ARGS[a + 6] == 1, money, 0, 0, 0, 0, 0, 0}
    local count = ARGS[a + 15]
    a = a + 15
    for d = 1, count do
        local k = DIMS + 5 * d
        group[k - 4] = 0
        group[k - 3] = 0
        group[k - 2] = ARGS[a + 3 * d - 1]
        group[k - 1] = ARGS[a + 3 * d]
        group[k] = ARGS[a + 3 * d - 2]
    end
    a = a + 3 * count + 1
    if ARGS[a] > 0 then
        group[POOLS] = a
        a = a + 2 + 2 * ARGS[a]
    end
    if hash > 0 then
        local held = hashes[hash]
        if held == nil then
            held = {}
            hashes[hash] = held
            hashOrder[#hashOrder + 1] = hash
        end
        held[#held + 1] = group
        if leases > 0 then
            local leaseKey = KEYS[leases]
            local expired = call('ZRANGEBYSCORE', leaseKey, '-inf', now, 'LIMIT', 0, SWEEP)
            for e = 1, #expired do
                addClamped(KEYS[hash], 'mr' .. ARGS[group[AT] + 4], -tonumber(string.match(expired[e], '^(%d+):')))
            end
            if #expired > 0 then
                call('ZREM', leaseKey, unpack(expired))
            end
        end
    end
    local slots = ARGS[group[AT] + 2]
    if slots > 0 then
        local slotKey = KEYS[slots]
        call('ZREMRANGEBYSCORE', slotKey, '-inf', now)
        group[IN_FLIGHT] = call('ZCARD', slotKey)
    end
    g[i] = group
end

-- One HMGET per hash: the window end, a settlement's provisional length, when the hash expires
-- (window.lua) and every field its groups use; a window that ended is rolled and its counts follow from what was read.
for h = 1, #hashOrder do
    local index = hashOrder[h]
    local held = hashes[index]
    local fields = {'e', 'w', 'x'}
    local f = 3
    for j = 1, #held do
        local group = held[j]
        if group[HAS_MONEY] then
            local s = ARGS[group[AT] + 4]
            fields[f + 1] = 'm' .. s
            fields[f + 2] = 'mr' .. s
            f = f + 2
        end
        for k = DIMS + 1, #group, 5 do
            local field = group[k + 4]
            f = f + 1
            fields[f] = field
            if group[SLIDING] then
                f = f + 1
                fields[f] = 'p' .. field
            end
        end
    end
    local read = call('HMGET', KEYS[index], unpack(fields))
    local first = held[1]
    local windowEnd = tonumber(read[1])
    local rolled, follows = false, false
    if first[WINDOW] > 0 and read[2] and windowEnd then
        windowEnd = adoptLength(KEYS[index], windowEnd, tonumber(read[2]), first[WINDOW], first[SLIDING])
    end
    if first[WINDOW] > 0 and mustRoll(now, windowEnd) then
        windowEnd, follows = rollWindow(KEYS[index], now, first[WINDOW], first[SLIDING], windowEnd, false)
        rolled = true
    elseif first[WINDOW] > 0 then
        -- a reload made the window longer or sliding since the hash was set to expire: its counts last longer
        local expiresAt = expiryOf(windowEnd, first[WINDOW], first[SLIDING])
        local kept = tonumber(read[3])
        if kept == nil or expiresAt > kept then
            expireAt(KEYS[index], expiresAt)
        end
    end
    local r = 4
    for j = 1, #held do
        local group = held[j]
        if group[WINDOW] > 0 then
            group[WINDOW_END] = windowEnd
        else
            group[WINDOW_END] = ARGS[group[AT] + 7]
        end
        group[LEFT] = max(0, group[WINDOW_END] - now)
        if group[HAS_MONEY] then
            group[M] = tonumber(read[r]) or 0
            group[MR] = tonumber(read[r + 1]) or 0
            r = r + 2
        end
        local sliding = group[SLIDING]
        for k = DIMS + 1, #group, 5 do
            local current = tonumber(read[r]) or 0
            local previous = 0
            r = r + 1
            if sliding then
                previous = tonumber(read[r]) or 0
                r = r + 1
            end
            if rolled then
                -- the live counters were read before the roll: they are now the previous window's
                if follows then
                    previous = current
                else
                    previous = 0
                end
                current = 0
            end
            group[k] = current
            group[k + 1] = previous
        end
    end
end

-- A work-conserving pool's limits are the model's times its share among the pools that asked within
-- the window, the asking one always among them (PoolSharing.limitsAmong): its limits are the model's.
-- Its pools' activity goes into the array from its last dimension on, 1 active, 0 not.
local active = {}
for i = 1, n do
    local group = g[i]
    local p = group[POOLS]
    if p > 0 then
        local poolCount = ARGS[p]
        local self = ARGS[p + 2]
        local pools = {}
        for k = 1, poolCount do
            pools[k] = ARGS[p + 1 + 2 * k]
        end
        local asked = call('HMGET', KEYS[ARGS[p + 1]], unpack(pools))
        local sum = 0.0
        local flags = {}
        for k = 1, poolCount do
            local at = tonumber(asked[k])
            if k == self or (at ~= nil and at > now - group[WINDOW]) then
                flags[k] = 1
                sum = sum + ARGS[p + 2 + 2 * k]
            else
                flags[k] = 0
            end
        end
        active[i] = flags
        local share = 0.0
        if sum > 0 then
            share = ARGS[p + 2 + 2 * self] / sum
        end
        for k = DIMS + 3, #group, 5 do
            if group[k] >= 0 then
                group[k] = floor(group[k] * share + 1e-9)
            end
        end
    end
end

-- The effective count of the dimension at k (PlanRule.effective).
local function effective(group, k)
    if not group[SLIDING] then
        return group[k]
    end
    return min(CAP, group[k] + weighted(group[k + 1], group[LEFT], group[WINDOW]))
end

-- the refused dimension's number, by the first byte of its counter's field ('r', 't', 'i', 'o')
local dimensionNumber = {[REQUESTS_FIELD] = 1, [116] = 2, [105] = 3, [111] = 4}

local saturation = 0.0
for i = 1, n do
    local group = g[i]
    if ARGS[group[AT] + 8] == 1 then
        for k = DIMS + 1, #group, 5 do
            local limit = group[k + 2]
            if limit > 0 then
                saturation = max(saturation, effective(group, k) / limit)
            end
        end
    end
end

-- The first limit of the group this request would exceed (0: none); a windowed dimension is
-- exceeded when its effective count is above the largest that still admits the increment
-- (PlanRule.allowance).
local function refusedDimension(group)
    for k = DIMS + 1, #group, 5 do
        local limit = group[k + 2]
        if limit >= 0 then
            local inc = group[k + 3]
            local kind = string.byte(group[k + 4])
            local allowance
            if kind == REQUESTS_FIELD or inc == 0 then
                allowance = limit - 1
            elseif limit == 0 then
                allowance = -1
            else
                allowance = max(0, limit - inc)
            end
            if effective(group, k) > allowance then
                return dimensionNumber[kind]
            end
        end
    end
    local at = group[AT]
    local limPar = ARGS[at + 9]
    if limPar >= 0 and group[IN_FLIGHT] > limPar - 1 then
        return PARALLEL
    end
    -- money: something must be left and the worst case must fit it (PlanRule.moneyAllowance)
    local limMic = ARGS[at + 10]
    if limMic >= 0 and min(CAP, group[M] + group[MR]) > limMic - max(1, ARGS[at + 13]) then
        return MONEY
    end
    return 0
end

local refusedAt, refusedBy = 0, 0
local result = {0, 0}
local c = 2
for i = 1, n do
    local group = g[i]
    if refusedAt == 0 then
        local enforcement = ARGS[group[AT] + 11]
        if enforcement == 0 or (enforcement == 1 and saturation >= ARGS[group[AT] + 12]) then
            refusedBy = refusedDimension(group)
            if refusedBy > 0 then
                refusedAt = i
            end
        end
    end
    for k = DIMS + 1, #group, 5 do
        result[c + 1] = group[k]
        result[c + 2] = group[k + 1]
        c = c + 2
    end
    result[c + 1] = group[M]
    result[c + 2] = group[MR]
    result[c + 3] = group[IN_FLIGHT]
    result[c + 4] = group[LEFT]
    result[c + 5] = group[WINDOW_END]
    c = c + 5
    local flags = active[i]
    if flags then
        for k = 1, #flags do
            result[c + k] = flags[k]
        end
        c = c + #flags
    end
end
result[1] = refusedAt
result[2] = refusedBy
-- A request that reached the model's limits (admitted, or refused by them or a group after them)
-- marks its pool active in each window (Plan.askedModel).
local modelIndex = 0
for i = n, 1, -1 do
    if ARGS[g[i][AT] + 8] == 1 then
        modelIndex = i
    end
end
if modelIndex > 0 and (refusedAt == 0 or refusedAt >= modelIndex) then
    for i = 1, n do
        local p = g[i][POOLS]
        if p > 0 then
            local activity = KEYS[ARGS[p + 1]]
            call('HSET', activity, ARGS[p + 1 + 2 * ARGS[p + 2]], string.format('%d', now))
            call('PEXPIRE', activity, string.format('%d', g[i][WINDOW]))
        end
    end
end
if refusedAt > 0 then
    call('DEL', marker)
    return result
end

-- The record lives for the lease, and while a window it reserved tokens in still counts: a call that
-- outlives its lease is then still settled against its reservation, not beside it.
local keep = lease
for h = 1, #hashOrder do
    local index = hashOrder[h]
    local held = hashes[index]
    local changed = {}
    local f = 0
    for j = 1, #held do
        local group = held[j]
        local at = group[AT]
        for k = DIMS + 1, #group, 5 do
            local inc = group[k + 3]
            if inc ~= 0 then
                changed[f + 1] = group[k + 4]
                changed[f + 2] = string.format('%d', clamped(group[k], inc))
                f = f + 2
                if inc > 0 and group[WINDOW] > 0 and string.byte(group[k + 4]) ~= REQUESTS_FIELD then
                    local life = group[WINDOW_END] - now
                    if group[SLIDING] then
                        life = life + group[WINDOW]
                    end
                    keep = max(keep, life)
                end
            end
        end
        local leases = ARGS[at + 3]
        local incMic = ARGS[at + 13]
        if leases > 0 and incMic > 0 then
            local leaseKey = KEYS[leases]
            changed[f + 1] = 'mr' .. ARGS[at + 4]
            changed[f + 2] = string.format('%d', clamped(group[MR], incMic))
            f = f + 2
            call('ZADD', leaseKey, string.format('%d', now + lease), string.format('%d', incMic) .. ':' .. requestId)
            -- lives as long as the counters it gives back to, so no reservation outlives its record
            call('PEXPIREAT', leaseKey, string.format('%d', ARGS[at + 7] + lease))
        end
    end
    if f > 0 then
        call('HSET', KEYS[index], unpack(changed))
    end
    local first = held[1]
    if first[WINDOW] == 0 then
        call('PEXPIREAT', KEYS[index], string.format('%d', ARGS[first[AT] + 7] + lease))
    end
end
for i = 1, n do
    local at = g[i][AT]
    if ARGS[at + 14] == 1 then
        local slotKey = KEYS[ARGS[at + 2]]
        call('ZADD', slotKey, string.format('%d', now + lease), requestId)
        -- Every slot in the set ends no later than this one: the set goes when its last lease does.
        call('PEXPIRE', slotKey, lease)
    end
end
if keep > lease then
    call('PEXPIRE', marker, string.format('%d', keep))
end
return result
