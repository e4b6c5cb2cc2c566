-- KEYS[1] the buckets. ARGV[9..16] remaining and reset in (ms) of each dimension in the order r, t, i, o;
-- ARGV[17] pause (ms); -1 where the provider said nothing.
-- Lowers only: a bucket holds no more than the provider has now, and is not full before the provider is.
local function lowered(level, d, remaining, reset)
  if remaining < 0 then
    return level
  end
  local result = math.min(level, remaining)
  if reset >= 0 then
    result = math.min(result, cap[d] - rate[d] * reset)
  end
  return result
end

local now = now_ms()
local b = load(KEYS[1], now)
for d = 1, 4 do
  if rate[d] > 0 then
    b.level[d] = lowered(b.level[d], d, tonumber(ARGV[7 + 2 * d]), tonumber(ARGV[8 + 2 * d]))
  end
end
local pause = tonumber(ARGV[17])
if pause > 0 then
  b.p = math.max(b.p, now + pause)
end
save(KEYS[1], b, now)
return 1
