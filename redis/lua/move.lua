-- Aging or an in-place re-score: ZREM from one list and ZADD to another (or the same) at
-- once. Returns 1, or 0 if the member was not in the first list (then nothing changes).
-- KEYS: from, to. ARGV: score, member.
local removed = redis.call('ZREM', KEYS[1], ARGV[2])
if removed == 1 then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2]) end
return removed
