#pragma once
// The Lua scripts run on Redis (documented in docs/redis.md). Each is loaded once per
// connection (SCRIPT LOAD) and called with EVALSHA.
namespace waitroom::redis::scripts {

// The articles' atomic release: take the first N members of a list, remove them, add them to
// the released set and count them, in one step no other client can interleave with.
// KEYS: list, released set, stats hash, release log hash. ARGV: N, stats field, release id,
// id to forget. With a release id the result is logged under it, and a second call with the
// same id returns it again: a release replayed after a reconnect is not taken twice. The
// caller keeps fewer releases in flight than it keeps logged (it forgets id - window).
inline constexpr const char* release = R"lua(
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
)lua";

// A lottery draw: the model chose the member with its own random stream; the script removes
// exactly it (so runs stay reproducible) and records the release. Returns 1, or 0 if absent.
// KEYS: class set, released set, stats hash. ARGV: member, stats field.
inline constexpr const char* draw = R"lua(
local removed = redis.call('SREM', KEYS[1], ARGV[1])
if removed == 1 then
  redis.call('SADD', KEYS[2], ARGV[1])
  redis.call('HINCRBY', KEYS[3], ARGV[2], 1)
end
return removed
)lua";

// Aging or an in-place re-score: ZREM from one list and ZADD to another (or the same) at
// once. Returns 1, or 0 if the member was not in the first list (then nothing changes).
// KEYS: from, to. ARGV: score, member.
inline constexpr const char* move = R"lua(
local removed = redis.call('ZREM', KEYS[1], ARGV[2])
if removed == 1 then redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2]) end
return removed
)lua";

}  // namespace waitroom::redis::scripts
