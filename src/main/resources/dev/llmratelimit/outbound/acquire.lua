-- KEYS[1] the buckets, KEYS[2] the permit's marker. ARGV[9] input tokens and ARGV[10] output tokens
-- estimated, ARGV[11] max-wait (ms), ARGV[12] the permit's lease (ms). Returns {0, wait, 0} taken,
-- {1, wait, d} the wait would exceed max-wait, {2, 0, d} the estimate can never fit; d is the dimension
-- (1..4) that refused it, 0 when the pause did.
local input = tonumber(ARGV[9])
local output = tonumber(ARGV[10])
local cost = amounts(1, input, output)
for d = 1, 4 do
  if rate[d] > 0 and cap[d] < cost[d] then
    return {2, 0, d}
  end
end
local now = now_ms()
local b = load(KEYS[1], now)
local wait = math.max(b.p - now, 0)
local short_of = 0
for d = 1, 4 do
  if rate[d] > 0 and b.level[d] < cost[d] then
    local until_room = math.ceil((cost[d] - b.level[d]) / rate[d])
    if until_room > wait then
      wait = until_room
      short_of = d
    end
  end
end
if wait > tonumber(ARGV[11]) then
  return {1, wait, short_of}
end
for d = 1, 4 do
  if rate[d] > 0 then b.level[d] = b.level[d] - cost[d] end
end
save(KEYS[1], b, now)
redis.call('SET', KEYS[2], ARGV[9] .. ':' .. ARGV[10], 'PX', wait + tonumber(ARGV[12]))
return {0, wait, 0}
