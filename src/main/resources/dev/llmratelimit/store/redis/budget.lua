-- A budget's figures, read only (the status page and the gauges). Runs after window.lua (for
-- serverMillis). KEYS[1] the budget's hash, KEYS[2] its reservations (see GroupKeys)
-- Returns  {spent, reserved}: reservations whose lease has ended do not count (the next decision
--          on the budget sweeps them)
local read = redis.call('HMGET', KEYS[1], 'm', 'mr')
local reserved = tonumber(read[2]) or 0
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', serverMillis())
for _, member in ipairs(expired) do
    reserved = reserved - tonumber(string.match(member, '^(%d+):'))
end
return {tonumber(read[1]) or 0, math.max(0, reserved)}
