-- KEYS[1] the buckets, KEYS[2] the permit's marker ("<input>:<output>" estimated). ARGV[9] input and
-- ARGV[10] output tokens used, ARGV[11] '1' to give the request back. Returns 1 when settled, 0 when the
-- marker is gone (settled already, never taken, lease over).
local marker = redis.call('GET', KEYS[2])
if not marker then
  return 0
end
local est_input, est_output = string.match(marker, '^(%d+):(%d+)$')
if not est_input then
  return redis.error_reply('permit marker ' .. KEYS[2] .. ' is not <input>:<output>')
end
redis.call('DEL', KEYS[2])
local estimate = amounts(1, tonumber(est_input), tonumber(est_output))
local used = amounts(ARGV[11] == '1' and 0 or 1, tonumber(ARGV[9]), tonumber(ARGV[10]))
local now = now_ms()
local b = load(KEYS[1], now)
for d = 1, 4 do
  if rate[d] > 0 then
    b.level[d] = math.min(cap[d], b.level[d] + estimate[d] - used[d])
  end
end
save(KEYS[1], b, now)
return 1
