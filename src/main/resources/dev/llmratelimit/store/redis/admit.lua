-- One decision for every counter group of one hash slot (docs/admission.md), the same
-- rule as dev.llmratelimit.engine.PlanRule: read every group, compute the saturation (the highest
-- use over every model group's limits), check every enforced limit in order, and only if all pass
-- apply every group's increments; the request id's marker keeps the decision's time.
-- Runs after window.lua.
-- KEYS     the groups' hashes, slot sets and lease sets, then last the request's marker
-- ARGV     request id, lease ms, group count, then per group: hash index in KEYS (0: none), slot set
--          index (0: none), lease set index (0: none), field suffix, window ms (0: a period or no
--          window), sliding (1/0), period end ms (0: none), model group (1/0), limits parallel,
--          micros (-1: none), enforcement (0 always, 1 when the model is saturated, 2 tracked),
--          threshold, increments micros, slot (1/0), then the number of its windowed dimensions
--          and per dimension: field letter, limit (-1: none; a work-conserving pool's: the model's),
--          increment; then the number of the model's pools for a work-conserving pool (else 0) and
--          if any: the activity hash's index in KEYS, this pool's place (1-based), each pool's name
--          and share
-- Returns  {refused group (0 admitted, -1 the request id was already decided or cancelled),
--          refused dimension (1 requests, 2 tokens, 3 input tokens, 4 output tokens, 5 parallel,
--          6 money), then per group: per windowed dimension its count and the previous window's,
--          then micros spent, micros reserved, slots in flight, ms left, window end, and for a
--          work-conserving pool per pool 1 if it was active, else 0}
-- A budget's reservations whose lease ended are given back first, at most SWEEP per budget and
-- decision (every decision on the budget sweeps, so they never pile up).
local SWEEP = 64
local PARALLEL = 5
local MONEY = 6
local requestId = ARGV[1]
local lease = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local marker = KEYS[#KEYS]

-- The marker is claimed first: NX refuses a request id already decided or cancelled, and as the
-- script's first write it is the one Redis refuses when full (maxmemory is checked at a script's
-- first write only), so a full Redis fails the decision before anything is counted. It holds the
-- decision's time: each group counted in the one window of its length that ends in
-- (now, now + window], which is how settle.lua finds it again.
local now = serverMillis()
if not redis.call('SET', marker, string.format('%d', now), 'NX', 'PX', string.format('%d', lease)) then
    return {-1, 0}
end
local g = {}
-- the hashes in KEYS order of first use, each with the groups it holds (a model and its pools share one)
local hashes = {}
local hashOrder = {}
local a = 3
for i = 1, n do
    local group = {
        hash = tonumber(ARGV[a + 1]), slots = tonumber(ARGV[a + 2]), leases = tonumber(ARGV[a + 3]),
        suffix = ARGV[a + 4],
        window = tonumber(ARGV[a + 5]), sliding = ARGV[a + 6] == '1', periodEnd = tonumber(ARGV[a + 7]),
        model = ARGV[a + 8] == '1', limPar = tonumber(ARGV[a + 9]), limMic = tonumber(ARGV[a + 10]),
        enforcement = tonumber(ARGV[a + 11]), threshold = tonumber(ARGV[a + 12]),
        incMic = tonumber(ARGV[a + 13]), slot = ARGV[a + 14] == '1',
        dims = {}, m = 0, mr = 0, inFlight = 0, left = 0, windowEnd = 0
    }
    local count = tonumber(ARGV[a + 15])
    a = a + 15
    for d = 1, count do
        group.dims[d] = {field = ARGV[a + 1], limit = tonumber(ARGV[a + 2]), inc = tonumber(ARGV[a + 3]),
            current = 0, previous = 0}
        a = a + 3
    end
    local poolCount = tonumber(ARGV[a + 1])
    a = a + 1
    if poolCount > 0 then
        group.activity = tonumber(ARGV[a + 1])
        group.self = tonumber(ARGV[a + 2])
        a = a + 2
        group.pools = {}
        group.shares = {}
        for k = 1, poolCount do
            group.pools[k] = ARGV[a + 1]
            group.shares[k] = tonumber(ARGV[a + 2])
            a = a + 2
        end
    end
    group.money = group.limMic >= 0 or group.leases > 0
    if group.hash > 0 then
        if hashes[group.hash] == nil then
            hashes[group.hash] = {}
            hashOrder[#hashOrder + 1] = group.hash
        end
        local held = hashes[group.hash]
        held[#held + 1] = group
        if group.leases > 0 then
            local expired = redis.call('ZRANGEBYSCORE', KEYS[group.leases], '-inf', now, 'LIMIT', 0, SWEEP)
            for _, member in ipairs(expired) do
                addClamped(KEYS[group.hash], 'mr' .. group.suffix, -tonumber(string.match(member, '^(%d+):')))
            end
            if #expired > 0 then
                redis.call('ZREM', KEYS[group.leases], unpack(expired))
            end
        end
    end
    if group.slots > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[group.slots], '-inf', now)
        group.inFlight = redis.call('ZCARD', KEYS[group.slots])
    end
    g[i] = group
end

-- One HMGET per hash: the window end and every field its groups use; a window that ended is rolled
-- and its counts follow from what was read.
for _, index in ipairs(hashOrder) do
    local held = hashes[index]
    local fields = {'e'}
    for _, group in ipairs(held) do
        local s = group.suffix
        if group.money then
            fields[#fields + 1] = 'm' .. s
            fields[#fields + 1] = 'mr' .. s
        end
        for _, dim in ipairs(group.dims) do
            fields[#fields + 1] = dim.field .. s
            if group.sliding then
                fields[#fields + 1] = 'p' .. dim.field .. s
            end
        end
    end
    local read = redis.call('HMGET', KEYS[index], unpack(fields))
    local first = held[1]
    local windowEnd = tonumber(read[1])
    local rolled, follows = false, false
    if first.window > 0 and mustRoll(now, windowEnd) then
        windowEnd, follows = rollWindow(KEYS[index], now, first.window, first.sliding, windowEnd)
        rolled = true
    end
    local at = 2
    for _, group in ipairs(held) do
        if group.window > 0 then
            group.windowEnd = windowEnd
        else
            group.windowEnd = group.periodEnd
        end
        group.left = math.max(0, group.windowEnd - now)
        if group.money then
            group.m = tonumber(read[at]) or 0
            group.mr = tonumber(read[at + 1]) or 0
            at = at + 2
        end
        for _, dim in ipairs(group.dims) do
            dim.current = tonumber(read[at]) or 0
            at = at + 1
            if group.sliding then
                dim.previous = tonumber(read[at]) or 0
                at = at + 1
            end
            if rolled then
                -- the live counters were read before the roll: they are now the previous window's
                if follows then
                    dim.previous = dim.current
                else
                    dim.previous = 0
                end
                dim.current = 0
            end
        end
    end
end

-- A work-conserving pool's limits are the model's times its share among the pools that asked within
-- the window, the asking one always among them (PoolSharing.limitsAmong): its dims hold the model's.
for i = 1, n do
    local group = g[i]
    if group.pools then
        local asked = redis.call('HMGET', KEYS[group.activity], unpack(group.pools))
        local sum = 0.0
        group.active = {}
        for k = 1, #group.pools do
            local at = tonumber(asked[k])
            local active = k == group.self or (at ~= nil and at > now - group.window)
            group.active[k] = active
            if active then
                sum = sum + group.shares[k]
            end
        end
        local share = 0.0
        if sum > 0 then
            share = group.shares[group.self] / sum
        end
        for _, dim in ipairs(group.dims) do
            if dim.limit >= 0 then
                dim.limit = math.floor(dim.limit * share + 1e-9)
            end
        end
    end
end

local function effective(group, dim)
    if not group.sliding then
        return dim.current
    end
    return math.min(CAP, dim.current + weighted(dim.previous, group.left, group.window))
end

-- The largest effective count that still admits the increment (PlanRule.allowance).
local function allowance(dim)
    if dim.field == 'r' or dim.inc == 0 then
        return dim.limit - 1
    elseif dim.limit == 0 then
        return -1
    end
    return math.max(0, dim.limit - dim.inc)
end

local dimensionNumber = {r = 1, t = 2, i = 3, o = 4}

local saturation = 0.0
for i = 1, n do
    if g[i].model then
        for _, dim in ipairs(g[i].dims) do
            if dim.limit > 0 then
                saturation = math.max(saturation, effective(g[i], dim) / dim.limit)
            end
        end
    end
end

local function refusedDimension(group)
    for _, dim in ipairs(group.dims) do
        if dim.limit >= 0 and effective(group, dim) > allowance(dim) then
            return dimensionNumber[dim.field]
        end
    end
    if group.limPar >= 0 and group.inFlight > group.limPar - 1 then
        return PARALLEL
    end
    -- money: something must be left and the worst case must fit it (PlanRule.moneyAllowance)
    if group.limMic >= 0 and math.min(CAP, group.m + group.mr) > group.limMic - math.max(1, group.incMic) then
        return MONEY
    end
    return 0
end

local result = {0, 0}
for i = 1, n do
    local group = g[i]
    local enforced = group.enforcement == 0 or (group.enforcement == 1 and saturation >= group.threshold)
    if enforced and result[1] == 0 then
        local dimension = refusedDimension(group)
        if dimension > 0 then
            result[1] = i
            result[2] = dimension
        end
    end
    local c = #result
    for _, dim in ipairs(group.dims) do
        result[c + 1] = dim.current
        result[c + 2] = dim.previous
        c = c + 2
    end
    result[c + 1] = group.m
    result[c + 2] = group.mr
    result[c + 3] = group.inFlight
    result[c + 4] = group.left
    result[c + 5] = group.windowEnd
    if group.pools then
        for k = 1, #group.pools do
            if group.active[k] then
                result[c + 5 + k] = 1
            else
                result[c + 5 + k] = 0
            end
        end
    end
end
-- A request that reached the model's limits (admitted, or refused by them or a group after them)
-- marks its pool active in each window (Plan.askedModel).
local modelIndex = 0
for i = n, 1, -1 do
    if g[i].model then
        modelIndex = i
    end
end
if modelIndex > 0 and (result[1] == 0 or result[1] >= modelIndex) then
    for i = 1, n do
        local group = g[i]
        if group.pools then
            redis.call('HSET', KEYS[group.activity], group.pools[group.self], string.format('%d', now))
            redis.call('PEXPIRE', KEYS[group.activity], string.format('%d', group.window))
        end
    end
end
if result[1] > 0 then
    redis.call('DEL', marker)
    return result
end

-- The record lives for the lease, and while a window it reserved tokens in still counts: a call that
-- outlives its lease is then still settled against its reservation, not beside it.
local keep = lease
for _, index in ipairs(hashOrder) do
    local changed = {}
    for _, group in ipairs(hashes[index]) do
        local s = group.suffix
        for _, dim in ipairs(group.dims) do
            if dim.inc ~= 0 then
                changed[#changed + 1] = dim.field .. s
                changed[#changed + 1] = string.format('%d', clamped(dim.current, dim.inc))
            end
            if dim.field ~= 'r' and dim.inc > 0 and group.window > 0 then
                local life = group.windowEnd - now
                if group.sliding then
                    life = life + group.window
                end
                keep = math.max(keep, life)
            end
        end
        if group.leases > 0 and group.incMic > 0 then
            changed[#changed + 1] = 'mr' .. s
            changed[#changed + 1] = string.format('%d', clamped(group.mr, group.incMic))
            redis.call('ZADD', KEYS[group.leases], string.format('%d', now + lease),
                string.format('%d', group.incMic) .. ':' .. requestId)
            -- lives as long as the counters it gives back to, so no reservation outlives its record
            redis.call('PEXPIREAT', KEYS[group.leases], string.format('%d', group.periodEnd + lease))
        end
    end
    if #changed > 0 then
        redis.call('HSET', KEYS[index], unpack(changed))
    end
    local first = hashes[index][1]
    if first.window == 0 then
        redis.call('PEXPIREAT', KEYS[index], string.format('%d', first.periodEnd + lease))
    end
end
for i = 1, n do
    local group = g[i]
    if group.slot then
        redis.call('ZADD', KEYS[group.slots], string.format('%d', now + lease), requestId)
        -- Every slot in the set ends no later than this one: the set goes when its last lease does.
        redis.call('PEXPIRE', KEYS[group.slots], lease)
    end
end
if keep > lease then
    redis.call('PEXPIRE', marker, string.format('%d', keep))
end
return result
