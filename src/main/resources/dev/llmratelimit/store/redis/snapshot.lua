-- A model's counters, read only (the status page and the gauges): no window is started, rolled or
-- changed. Runs after window.lua (for serverMillis). KEYS[1]  the model's hash (see window.lua)
-- ARGV     the model's pool names, in pool-index order
-- Returns  {server time ms, window end (-1: none), r, t, then r:<pool>, t:<pool> of every pool,
--          then the same fields of the previous window (pr, pt, pr:<pool>, pt:<pool>)}
local fields = {'e', 'r', 't'}
for i = 1, #ARGV do
    fields[#fields + 1] = 'r:' .. ARGV[i]
    fields[#fields + 1] = 't:' .. ARGV[i]
end
local count = #fields
for i = 2, count do
    fields[#fields + 1] = 'p' .. fields[i]
end
local read = redis.call('HMGET', KEYS[1], unpack(fields))
local result = {serverMillis(), tonumber(read[1]) or -1}
for i = 2, #read do
    result[#result + 1] = tonumber(read[i]) or 0
end
return result
