-- One decision for every counter group of one hash slot (docs/admission.md), the same
-- rule as dev.llmratelimit.engine.PlanRule: read every group, compute the model's saturation,
-- check every enforced limit in order, and only if all pass apply every group's increments and
-- record the window ends it counted in under the request id. Runs after window.lua.
-- KEYS     the groups' hashes, slot sets and lease sets, then last the request's marker
-- ARGV     request id, lease ms, group count, then per group (GROUP_ARGS values):
--          hash index in KEYS (0: none), slot set index (0: none), lease set index (0: none), field suffix,
--          window ms (0: a period or no window), sliding (1/0), period end ms (0: none),
--          limits requests, tokens, parallel, micros (-1: none),
--          enforcement (0 always, 1 when the model group is saturated, 2 tracked), threshold,
--          model group index (0: none), increments requests, tokens, micros, slot (1/0)
-- Returns  {refused group (0 admitted, -1 the request id was already decided or cancelled),
--          refused limit (1 requests, 2 tokens, 3 parallel, 4 money), then per group: requests,
--          tokens, micros spent, micros reserved, previous requests, previous tokens, slots in
--          flight, ms left, window end}
-- A budget's reservations whose lease ended are given back first, at most SWEEP per budget and
-- decision (every decision on the budget sweeps, so they never pile up).
local GROUP_ARGS = 18
local SWEEP = 64
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
for i = 1, n do
    local base = 3 + (i - 1) * GROUP_ARGS
    local group = {
        hash = tonumber(ARGV[base + 1]), slots = tonumber(ARGV[base + 2]), leases = tonumber(ARGV[base + 3]),
        suffix = ARGV[base + 4],
        window = tonumber(ARGV[base + 5]), sliding = ARGV[base + 6] == '1', periodEnd = tonumber(ARGV[base + 7]),
        limReq = tonumber(ARGV[base + 8]), limTok = tonumber(ARGV[base + 9]),
        limPar = tonumber(ARGV[base + 10]), limMic = tonumber(ARGV[base + 11]),
        enforcement = tonumber(ARGV[base + 12]), threshold = tonumber(ARGV[base + 13]),
        model = tonumber(ARGV[base + 14]), incReq = tonumber(ARGV[base + 15]), incTok = tonumber(ARGV[base + 16]),
        incMic = tonumber(ARGV[base + 17]), slot = ARGV[base + 18] == '1',
        r = 0, t = 0, m = 0, mr = 0, pr = 0, pt = 0, inFlight = 0, left = 0, windowEnd = 0
    }
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
        local read = redis.call('HMGET', key, 'r' .. s, 't' .. s, 'm' .. s, 'mr' .. s, 'pr' .. s, 'pt' .. s)
        group.r = tonumber(read[1]) or 0
        group.t = tonumber(read[2]) or 0
        group.m = tonumber(read[3]) or 0
        group.mr = tonumber(read[4]) or 0
        group.pr = tonumber(read[5]) or 0
        group.pt = tonumber(read[6]) or 0
    end
    if group.slots > 0 then
        redis.call('ZREMRANGEBYSCORE', KEYS[group.slots], '-inf', now)
        group.inFlight = redis.call('ZCARD', KEYS[group.slots])
    end
    g[i] = group
end

local function effective(group, current, previous)
    if not group.sliding then
        return current
    end
    return math.min(CAP, current + weighted(previous, group.left, group.window))
end

local function allowance(limit, reserved)
    if reserved == 0 then
        return limit - 1
    elseif limit == 0 then
        return -1
    end
    return math.max(0, limit - reserved)
end

local function saturation(group)
    local value = 0.0
    if group.limReq > 0 then
        value = effective(group, group.r, group.pr) / group.limReq
    end
    if group.limTok > 0 then
        value = math.max(value, effective(group, group.t, group.pt) / group.limTok)
    end
    return value
end

local function refusedLimit(group)
    if group.limReq >= 0 and effective(group, group.r, group.pr) > group.limReq - 1 then
        return 1
    end
    if group.limTok >= 0 and effective(group, group.t, group.pt) > allowance(group.limTok, group.incTok) then
        return 2
    end
    if group.limPar >= 0 and group.inFlight > group.limPar - 1 then
        return 3
    end
    -- money: something must be left and the worst case must fit it (PlanRule.moneyAllowance)
    if group.limMic >= 0 and math.min(CAP, group.m + group.mr) > group.limMic - math.max(1, group.incMic) then
        return 4
    end
    return 0
end

local result = {0, 0}
for i = 1, n do
    local group = g[i]
    local enforced = group.enforcement == 0
        or (group.enforcement == 1 and group.model > 0 and saturation(g[group.model]) >= group.threshold)
    if enforced and result[1] == 0 then
        local limit = refusedLimit(group)
        if limit > 0 then
            result[1] = i
            result[2] = limit
        end
    end
    local c = #result
    result[c + 1] = group.r
    result[c + 2] = group.t
    result[c + 3] = group.m
    result[c + 4] = group.mr
    result[c + 5] = group.pr
    result[c + 6] = group.pt
    result[c + 7] = group.inFlight
    result[c + 8] = group.left
    result[c + 9] = group.windowEnd
end
if result[1] > 0 then
    return result
end

local ends = {}
for i = 1, n do
    local group = g[i]
    if group.hash > 0 then
        local key = KEYS[group.hash]
        local s = group.suffix
        addClamped(key, 'r' .. s, group.incReq)
        addClamped(key, 't' .. s, group.incTok)
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
-- The record lives for the lease, and while a window it reserved tokens in still counts: a call that
-- outlives its lease is then still settled against its reservation, not beside it.
local keep = lease
for i = 1, n do
    local group = g[i]
    if group.hash > 0 and group.window > 0 and group.incTok > 0 then
        local life = group.windowEnd - now
        if group.sliding then
            life = life + group.window
        end
        keep = math.max(keep, life)
    end
end
redis.call('SET', marker, table.concat(ends, ','), 'PX', string.format('%d', keep))
return result
