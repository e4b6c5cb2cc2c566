-- Undoes an acquisition that the model decision refused: takes the request back from every counter
-- whose window is still the one that counted it, and gives the parallel slot back.
-- KEYS     per counter i: KEYS[2i-1] its hash, KEYS[2i] its slots
-- ARGV     slot id ('' for none), then per counter: window end returned by the acquisition (0 = none)
local slot = ARGV[1]
for i = 1, #KEYS / 2 do
    local windowEnd = ARGV[i + 1]
    if windowEnd ~= '0' and redis.call('HGET', KEYS[2 * i - 1], 'e') == windowEnd then
        redis.call('HINCRBY', KEYS[2 * i - 1], 'r', -1)
    end
    if slot ~= '' then
        redis.call('ZREM', KEYS[2 * i], slot)
    end
end
return 0
