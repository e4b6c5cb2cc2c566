-- One instance says it is alive and learns how many are (on-store-failure=local divides every limit
-- among them while Redis is away). KEYS[1] the sorted set of instances (member: instance id, score:
-- until when it counts as alive, server ms); ARGV[1] the instance id, ARGV[2] how long it counts, ms.
-- Returns the live instances, this one included.
local now = serverMillis()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZADD', KEYS[1], string.format('%d', now + tonumber(ARGV[2])), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
