-- The buckets of one (provider, model), shared by acquire.lua, settle.lua and correct.lua (this file is
-- put before each). One hash per pair, one field per dimension: r = requests held, t = tokens (input and
-- output together), i = input tokens, o = output tokens (any may be below zero: what queued callers wait
-- for); u = when they were last refilled (ms, server clock), p = paused until (ms). A field the hash lacks
-- is a full bucket. A rate of 0 means that dimension is not limited.
-- ARGV[1..8]: rate per ms and capacity of each dimension in the order r, t, i, o.
local FIELDS = {'r', 't', 'i', 'o'}
local rate = {}
local cap = {}
for d = 1, 4 do
  rate[d] = tonumber(ARGV[2 * d - 1])
  cap[d] = tonumber(ARGV[2 * d])
end

local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- How much of each dimension one request of these input and output tokens is.
local function amounts(requests, input, output)
  return {requests, input + output, input, output}
end

-- The buckets refilled to now; a missing hash is full buckets.
local function load(key, now)
  local v = redis.call('HMGET', key, 'r', 't', 'i', 'o', 'u', 'p')
  local b = {level = {}, u = tonumber(v[5]) or now, p = tonumber(v[6]) or 0}
  local elapsed = now - b.u
  for d = 1, 4 do
    local level = tonumber(v[d]) or cap[d]
    if elapsed > 0 then
      level = math.min(cap[d], level + elapsed * rate[d])
    end
    b.level[d] = level
  end
  if elapsed > 0 then b.u = now end
  return b
end

-- Writes the buckets back; the hash expires once all are full again and no pause is left,
-- when it is indistinguishable from a missing one.
local function save(key, b, now)
  local ttl = math.max(b.p - now, 0)
  local args = {}
  for d = 1, 4 do
    args[#args + 1] = FIELDS[d]
    args[#args + 1] = string.format('%.17g', b.level[d])
    if rate[d] > 0 then ttl = math.max(ttl, (cap[d] - b.level[d]) / rate[d]) end
  end
  redis.call('HSET', key, 'u', string.format('%d', b.u), 'p', string.format('%d', b.p), unpack(args))
  redis.call('PEXPIRE', key, math.ceil(ttl) + 1000)
end
