-- Gives a parallel slot back.
-- KEYS     the slot sets of the counters that limit parallel requests
-- ARGV     slot id
for i = 1, #KEYS do
    redis.call('ZREM', KEYS[i], ARGV[1])
end
return 0
