-- A model's counters, read only (the status page and the gauges): no window is started, rolled or
-- changed. Runs after window.lua (for serverMillis).
-- KEYS     the hash of every window of the model (see window.lua), under the model's hash tag, then
--          for a work-conserving model the activity hash of its configured window
-- ARGV     the field letters of the windowed dimensions in index order (one string), the number of
--          window hashes in KEYS, then the model's pool names, in pool-index order
-- Returns  {server time ms, then per window hash: window end (-1: none), every letter's counter of
--          the model, then of every pool (<letter>:<pool>), then the same fields of the previous
--          window; then, with an activity hash, when each pool last asked (-1: never)}
local letters = ARGV[1]
local windows = tonumber(ARGV[2])
local pools = {}
for p = 3, #ARGV do
    pools[#pools + 1] = ARGV[p]
end
local fields = {'e'}
for p = 0, #pools do
    local suffix = ''
    if p > 0 then
        suffix = ':' .. pools[p]
    end
    for l = 1, #letters do
        fields[#fields + 1] = string.sub(letters, l, l) .. suffix
    end
end
local count = #fields
for i = 2, count do
    fields[#fields + 1] = 'p' .. fields[i]
end
local result = {serverMillis()}
for k = 1, windows do
    local read = redis.call('HMGET', KEYS[k], unpack(fields))
    result[#result + 1] = tonumber(read[1]) or -1
    for i = 2, #read do
        result[#result + 1] = tonumber(read[i]) or 0
    end
end
if #KEYS > windows and #pools > 0 then
    local asked = redis.call('HMGET', KEYS[windows + 1], unpack(pools))
    for p = 1, #pools do
        result[#result + 1] = tonumber(asked[p]) or -1
    end
end
return result
