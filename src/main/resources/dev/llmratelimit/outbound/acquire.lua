-- KEYS[1] the buckets, KEYS[2] the permit's marker. ARGV[5] the token estimate, ARGV[6] max-wait (ms),
-- ARGV[7] the permit's lease (ms). Returns {0, wait} taken, {1, wait} the wait would exceed max-wait,
-- {2, 0} the estimate can never fit.
local cost = tonumber(ARGV[5])
if (req_rate > 0 and req_cap < 1) or (tok_rate > 0 and tok_cap < cost) then
  return {2, 0}
end
local now = now_ms()
local b = load(KEYS[1], now)
local wait = math.max(b.p - now, 0)
if req_rate > 0 and b.r < 1 then
  wait = math.max(wait, math.ceil((1 - b.r) / req_rate))
end
if tok_rate > 0 and b.t < cost then
  wait = math.max(wait, math.ceil((cost - b.t) / tok_rate))
end
if wait > tonumber(ARGV[6]) then
  return {1, wait}
end
if req_rate > 0 then b.r = b.r - 1 end
if tok_rate > 0 then b.t = b.t - cost end
save(KEYS[1], b, now)
redis.call('SET', KEYS[2], ARGV[5], 'PX', wait + tonumber(ARGV[7]))
return {0, wait}
