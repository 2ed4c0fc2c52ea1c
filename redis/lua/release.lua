-- The articles' atomic release: take the first N members of a list, remove them, add them to
-- the released set and count them, in one step no other client can interleave with.
-- KEYS: list, released set, stats hash, release log hash. ARGV: N, stats field, release id,
-- id to forget. With a release id the result is logged under it, and a second call with the
-- same id returns it again: a release replayed after a reconnect is not taken twice. The
-- caller keeps fewer releases in flight than it keeps logged (it forgets id - window).
local id = ARGV[3]
if id ~= '' then
  local done = redis.call('HGET', KEYS[4], id)
  if done then
    local out = {}
    for m in string.gmatch(done, '[^,]+') do out[#out + 1] = m end
    return out
  end
end
local n = tonumber(ARGV[1])
local members = {}
if n > 0 then members = redis.call('ZRANGE', KEYS[1], 0, n - 1) end
for i = 1, #members, 1000 do
  local j = math.min(i + 999, #members)
  redis.call('ZREM', KEYS[1], unpack(members, i, j))
  redis.call('SADD', KEYS[2], unpack(members, i, j))
end
if #members > 0 then redis.call('HINCRBY', KEYS[3], ARGV[2], #members) end
if id ~= '' then
  redis.call('HSET', KEYS[4], id, table.concat(members, ','))
  if ARGV[4] ~= '' then redis.call('HDEL', KEYS[4], ARGV[4]) end
end
return members
