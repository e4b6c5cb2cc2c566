-- A model's counters, read only (the status page and the gauges): no window is started, rolled or
-- changed. Runs after window.lua (for serverMillis).
-- KEYS     the hash of every window of the model (see window.lua), under the model's hash tag
-- ARGV     the field letters of the windowed dimensions in index order (one string), then the
--          model's pool names, in pool-index order
-- Returns  {server time ms, then per hash: window end (-1: none), every letter's counter of the
--          model, then of every pool (<letter>:<pool>), then the same fields of the previous window}
local letters = ARGV[1]
local fields = {'e'}
for p = 1, #ARGV do
    local suffix = ''
    if p > 1 then
        suffix = ':' .. ARGV[p]
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
for k = 1, #KEYS do
    local read = redis.call('HMGET', KEYS[k], unpack(fields))
    result[#result + 1] = tonumber(read[1]) or -1
    for i = 2, #read do
        result[#result + 1] = tonumber(read[i]) or 0
    end
end
return result
