-- The request and token buckets of one (provider, model), shared by acquire.lua, settle.lua and
-- correct.lua (this file is put before each). One hash per pair: r = requests held, t = tokens held
-- (either may be below zero: what queued callers wait for), u = when they were last refilled (ms,
-- server clock), p = paused until (ms). A rate of 0 means that dimension is not limited.
-- ARGV[1..4]: request rate per ms, request capacity, token rate per ms, token capacity.
local req_rate = tonumber(ARGV[1])
local req_cap = tonumber(ARGV[2])
local tok_rate = tonumber(ARGV[3])
local tok_cap = tonumber(ARGV[4])

local function now_ms()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

-- The buckets refilled to now; a missing hash is a pair of full buckets.
local function load(key, now)
  local v = redis.call('HMGET', key, 'r', 't', 'u', 'p')
  local b
  if v[1] then
    b = {r = tonumber(v[1]), t = tonumber(v[2]), u = tonumber(v[3]), p = tonumber(v[4])}
  else
    b = {r = req_cap, t = tok_cap, u = now, p = 0}
  end
  local elapsed = now - b.u
  if elapsed > 0 then
    b.r = math.min(req_cap, b.r + elapsed * req_rate)
    b.t = math.min(tok_cap, b.t + elapsed * tok_rate)
    b.u = now
  end
  return b
end

-- Writes the buckets back; the hash expires once both are full again and no pause is left,
-- when it is indistinguishable from a missing one.
local function save(key, b, now)
  redis.call('HSET', key, 'r', string.format('%.17g', b.r), 't', string.format('%.17g', b.t),
    'u', string.format('%d', b.u), 'p', string.format('%d', b.p))
  local ttl = math.max(b.p - now, 0)
  if req_rate > 0 then ttl = math.max(ttl, (req_cap - b.r) / req_rate) end
  if tok_rate > 0 then ttl = math.max(ttl, (tok_cap - b.t) / tok_rate) end
  redis.call('PEXPIRE', key, math.ceil(ttl) + 1000)
end
