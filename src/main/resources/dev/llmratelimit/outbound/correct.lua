-- KEYS[1] the buckets. ARGV[5] remaining requests, ARGV[6] requests reset in (ms), ARGV[7] remaining
-- tokens, ARGV[8] tokens reset in (ms), ARGV[9] pause (ms); -1 where the provider said nothing.
-- Lowers only: a bucket holds no more than the provider has now, and is not full before the provider is.
local function lowered(level, cap, rate, remaining, reset)
  if remaining < 0 then
    return level
  end
  local result = math.min(level, remaining)
  if reset >= 0 then
    result = math.min(result, cap - rate * reset)
  end
  return result
end

local now = now_ms()
local b = load(KEYS[1], now)
if req_rate > 0 then
  b.r = lowered(b.r, req_cap, req_rate, tonumber(ARGV[5]), tonumber(ARGV[6]))
end
if tok_rate > 0 then
  b.t = lowered(b.t, tok_cap, tok_rate, tonumber(ARGV[7]), tonumber(ARGV[8]))
end
local pause = tonumber(ARGV[9])
if pause > 0 then
  b.p = math.max(b.p, now + pause)
end
save(KEYS[1], b, now)
return 1
