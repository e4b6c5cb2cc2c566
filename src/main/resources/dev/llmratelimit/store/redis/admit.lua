-- One decision for every counter group of one hash slot (docs/admission.md), the same
-- rule as dev.llmratelimit.engine.PlanRule: read every group, compute the saturation (the highest
-- use over every model group's limits), check every enforced limit in order, and only if all pass
-- apply every group's increments and record the window ends it counted in under the request id.
-- Runs after window.lua.
-- KEYS     the groups' hashes, slot sets and lease sets, then last the request's marker
-- ARGV     request id, lease ms, group count, then per group: hash index in KEYS (0: none), slot set
--          index (0: none), lease set index (0: none), field suffix, window ms (0: a period or no
--          window), sliding (1/0), period end ms (0: none), model group (1/0), limits parallel,
--          micros (-1: none), enforcement (0 always, 1 when the model is saturated, 2 tracked),
--          threshold, increments micros, slot (1/0), then the number of its windowed dimensions
--          and per dimension: field letter, limit (-1: none), increment
-- Returns  {refused group (0 admitted, -1 the request id was already decided or cancelled),
--          refused dimension (1 requests, 2 tokens, 3 input tokens, 4 output tokens, 5 parallel,
--          6 money), then per group: per windowed dimension its count and the previous window's,
--          then micros spent, micros reserved, slots in flight, ms left, window end}
-- A budget's reservations whose lease ended are given back first, at most SWEEP per budget and
-- decision (every decision on the budget sweeps, so they never pile up).
local SWEEP = 64
local PARALLEL = 5
local MONEY = 6
local requestId = ARGV[1]
local lease = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local marker = KEYS[#KEYS]

if redis.call('EXISTS', marker) == 1 then
    return {-1, 0}
end
-- Redis checks maxmemory at a script's first write only, and any write command (even the slot
-- sets' clean-up, which adds nothing) lets every later one through. This write changes nothing
-- (the marker does not exist) but is one Redis refuses when full: a full Redis then fails the
-- decision before it counts anything, instead of admitting past maxmemory.
redis.call('SET', marker, '', 'XX')

local now = serverMillis()
local g = {}
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
    if group.hash > 0 then
        local key = KEYS[group.hash]
        if group.window > 0 then
            group.windowEnd = rollWindow(key, now, group.window, group.sliding)
        else
            group.windowEnd = group.periodEnd
        end
        group.left = math.max(0, group.windowEnd - now)
        local s = group.suffix
        if group.leases > 0 then
            local expired = redis.call('ZRANGEBYSCORE', KEYS[group.leases], '-inf', now, 'LIMIT', 0, SWEEP)
            for _, member in ipairs(expired) do
                addClamped(key, 'mr' .. s, -tonumber(string.match(member, '^(%d+):')))
            end
            if #expired > 0 then
                redis.call('ZREM', KEYS[group.leases], unpack(expired))
            end
        end
        local fields = {'m' .. s, 'mr' .. s}
        for _, dim in ipairs(group.dims) do
            fields[#fields + 1] = dim.field .. s
            fields[#fields + 1] = 'p' .. dim.field .. s
        end
        local read = redis.call('HMGET', key, unpack(fields))
        group.m = tonumber(read[1]) or 0
        group.mr = tonumber(read[2]) or 0
        for d, dim in ipairs(group.dims) do
            dim.current = tonumber(read[1 + 2 * d]) or 0
            dim.previous = tonumber(read[2 + 2 * d]) or 0
        end
    end
    if group.slots > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[group.slots], '-inf', now)
        group.inFlight = redis.call('ZCARD', KEYS[group.slots])
    end
    g[i] = group
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
end
if result[1] > 0 then
    return result
end

local ends = {}
-- The record lives for the lease, and while a window it reserved tokens in still counts: a call that
-- outlives its lease is then still settled against its reservation, not beside it.
local keep = lease
for i = 1, n do
    local group = g[i]
    if group.hash > 0 then
        local key = KEYS[group.hash]
        local s = group.suffix
        for _, dim in ipairs(group.dims) do
            addClamped(key, dim.field .. s, dim.inc)
            if dim.field ~= 'r' and dim.inc > 0 and group.window > 0 then
                local life = group.windowEnd - now
                if group.sliding then
                    life = life + group.window
                end
                keep = math.max(keep, life)
            end
        end
        if group.window == 0 then
            redis.call('PEXPIREAT', key, string.format('%d', group.periodEnd + lease))
        end
        if group.leases > 0 and group.incMic > 0 then
            addClamped(key, 'mr' .. s, group.incMic)
            redis.call('ZADD', KEYS[group.leases], string.format('%d', now + lease),
                string.format('%d', group.incMic) .. ':' .. requestId)
            -- lives as long as the counters it gives back to, so no reservation outlives its record
            redis.call('PEXPIREAT', KEYS[group.leases], string.format('%d', group.periodEnd + lease))
        end
    end
    if group.slot then
        redis.call('ZADD', KEYS[group.slots], string.format('%d', now + lease), requestId)
        -- Every slot in the set ends no later than this one: the set goes when its last lease does.
        redis.call('PEXPIRE', KEYS[group.slots], lease)
    end
    ends[i] = string.format('%d', group.windowEnd)
end
redis.call('SET', marker, table.concat(ends, ','), 'PX', string.format('%d', keep))
return result
