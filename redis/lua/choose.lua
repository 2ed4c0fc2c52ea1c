-- The release that chooses the list itself (strict, ratio, probabilistic over several lists):
-- one call takes N units, each from the list the policy picks, exactly as the model's
-- list_selector does (models/release/selector.cpp), all atomically. KEYS: every list's sorted
-- set in list order (L of them), the released set, the stats hash, the release log, the
-- selection's state hash. ARGV: N, policy, release id, id to forget, L, then the policy's
-- numbers:
--   ratio: work_conserving (1|0), the weights' epoch, L weights. The smooth weighted
--     round-robin credit lives in the state hash (`epoch`, `credit`: L doubles as %.17g, which
--     read back exactly); a new epoch (the model's set_weights ran) starts from zero credit,
--     as the model does. Same double operations in the same order, ties to the lower list.
--   probabilistic: L start probabilities, then N uniform draws from the model's own stream.
--   strict: nothing.
-- A unit whose pick finds no list (all empty, or ratio's share of an empty list without work
-- conservation) is lost; the loop stops when every list is empty, as the model's does.
-- Returns {order, lost, credit, members of list 0, ..., members of list L-1}: order is the
-- list of each unit taken (comma-separated, from 0), credit '' but for ratio. With a release
-- id the result is logged (fields split by '|') and replayed as the release script does.
local function split(s, sep)
  local out, from = {}, 1
  while true do
    local at = string.find(s, sep, from, true)
    if not at then
      out[#out + 1] = string.sub(s, from)
      return out
    end
    out[#out + 1] = string.sub(s, from, at - 1)
    from = at + 1
  end
end
local L = tonumber(ARGV[5])
local released, stats, log, state = KEYS[L + 1], KEYS[L + 2], KEYS[L + 3], KEYS[L + 4]
local id = ARGV[3]
if id ~= '' then
  local done = redis.call('HGET', log, id)
  if done then
    local parts = split(done, '|')
    local out = {parts[1], tonumber(parts[2]), parts[3]}
    for i = 1, L do
      if parts[3 + i] == '' then out[3 + i] = {} else out[3 + i] = split(parts[3 + i], ',') end
    end
    return out
  end
end
local n, policy = tonumber(ARGV[1]), ARGV[2]
local size, total, take = {}, 0, {}
for i = 1, L do
  size[i] = redis.call('ZCARD', KEYS[i])
  total = total + size[i]
  take[i] = 0
end
local function first_non_empty(start)
  for k = 0, L - 1 do
    local i = (start - 1 + k) % L + 1
    if size[i] > 0 then return i end
  end
  return nil
end
local wc, weights, credit, cum = false, {}, {}, {}
if policy == 'ratio' then
  wc = ARGV[6] == '1'
  for i = 1, L do weights[i] = tonumber(ARGV[7 + i]) end
  local st = redis.call('HMGET', state, 'epoch', 'credit')
  local kept = {}
  if st[1] == ARGV[7] and st[2] then kept = split(st[2], ',') end
  for i = 1, L do credit[i] = tonumber(kept[i]) or 0 end
elseif policy == 'probabilistic' then
  local c = 0
  for i = 1, L do
    c = c + tonumber(ARGV[5 + i])
    cum[i] = c
  end
elseif policy ~= 'strict' then
  return redis.error_reply('choose: unknown policy ' .. policy)
end
local order, lost = {}, 0
for k = 1, n do
  if total == 0 then break end
  local pick = nil
  if policy == 'strict' then
    pick = first_non_empty(1)
  elseif policy == 'probabilistic' then
    local u = tonumber(ARGV[5 + L + k])
    local s = 1
    while s < L and u >= cum[s] do s = s + 1 end
    pick = first_non_empty(s)
  else
    local sum, best = 0, nil
    for i = 1, L do
      if weights[i] > 0 and not (wc and size[i] == 0) then
        credit[i] = credit[i] + weights[i]
        sum = sum + weights[i]
        if best == nil or credit[i] > credit[best] then best = i end
      end
    end
    if best ~= nil then
      credit[best] = credit[best] - sum
      if size[best] > 0 then pick = best end
    end
  end
  if pick == nil then
    lost = lost + 1
  else
    take[pick] = take[pick] + 1
    size[pick] = size[pick] - 1
    total = total - 1
    order[#order + 1] = pick - 1
  end
end
local out = {table.concat(order, ','), lost, ''}
if policy == 'ratio' then
  local c = {}
  for i = 1, L do c[i] = string.format('%.17g', credit[i]) end
  out[3] = table.concat(c, ',')
  redis.call('HSET', state, 'epoch', ARGV[7], 'credit', out[3])
end
local logged = {out[1], tostring(lost), out[3]}
for i = 1, L do
  local members = {}
  if take[i] > 0 then members = redis.call('ZRANGE', KEYS[i], 0, take[i] - 1) end
  for a = 1, #members, 1000 do
    local b = math.min(a + 999, #members)
    redis.call('ZREM', KEYS[i], unpack(members, a, b))
    redis.call('SADD', released, unpack(members, a, b))
  end
  if #members > 0 then redis.call('HINCRBY', stats, 'released:' .. (i - 1), #members) end
  out[3 + i] = members
  logged[3 + i] = table.concat(members, ',')
end
if id ~= '' then
  redis.call('HSET', log, id, table.concat(logged, '|'))
  if ARGV[4] ~= '' then redis.call('HDEL', log, ARGV[4]) end
end
return out
