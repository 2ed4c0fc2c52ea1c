-- A lottery draw: the model chose the member with its own random stream; the script removes
-- exactly it (so runs stay reproducible) and records the release. Returns 1, or 0 if absent.
-- KEYS: class set, released set, stats hash. ARGV: member, stats field.
local removed = redis.call('SREM', KEYS[1], ARGV[1])
if removed == 1 then
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
end
return removed
