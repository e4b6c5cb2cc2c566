-- KEYS[1] the buckets, KEYS[2] the permit's marker. ARGV[5] the real tokens, ARGV[6] '1' to give the
-- request back. Returns 1 when settled, 0 when the marker is gone (settled already, never taken, lease over).
local estimate = redis.call('GET', KEYS[2])
if not estimate then
  return 0
end
redis.call('DEL', KEYS[2])
local now = now_ms()
local b = load(KEYS[1], now)
if tok_rate > 0 then
  b.t = math.min(tok_cap, b.t + tonumber(estimate) - tonumber(ARGV[5]))
end
if ARGV[6] == '1' and req_rate > 0 then
  b.r = math.min(req_cap, b.r + 1)
end
save(KEYS[1], b, now)
return 1
