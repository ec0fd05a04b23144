#include "jobs/fenced_scripts.hpp"

#include <string>

namespace jobs {
namespace {

// Shared by every fenced script: stream id comparison, the fence and the announcement.
// KEYS[1]=metadata KEYS[2]=stream; ARGV[1]=group ARGV[2]=consumer ARGV[3]=entry id.
// owner_fence() says 'lost' unless this consumer owns the entry; event_fence() says
// 'superseded' or 'already_final' (and acknowledges) when the metadata already belongs to a
// newer event or to this event's final write. Each returns nil when the write may go on.
constexpr const char* k_prelude = R"lua(
local function numcmp(x, y)
  if #x ~= #y then return (#x < #y) and -1 or 1 end
  if x == y then return 0 end
  return (x < y) and -1 or 1
end
local function idcmp(a, b)
  local ams, aseq = string.match(a, '^(%d+)-(%d+)$')
  local bms, bseq = string.match(b, '^(%d+)-(%d+)$')
  if not ams or not bms then return -1 end
  local c = numcmp(ams, bms)
  if c ~= 0 then return c end
  return numcmp(aseq, bseq)
end
local function owner_fence()
  local p = redis.call('XPENDING', KEYS[2], ARGV[1], ARGV[3], ARGV[3], 1)
  if #p == 0 or p[1][2] ~= ARGV[2] then return 'lost' end
  return nil
end
local function event_fence()
  local cur = redis.call('HMGET', KEYS[1], 'event_id', 'status')
  if not cur[1] then return nil end
  local c = idcmp(cur[1], ARGV[3])
  local verdict = nil
  if c > 0 then
    verdict = 'superseded'
  elseif c == 0 and (cur[2] == 'done' or cur[2] == 'failed' or cur[2] == 'deleted') then
    verdict = 'already_final'
  end
  if verdict then redis.call('XACK', KEYS[2], ARGV[1], ARGV[3]) end
  return verdict
end
local function fence()
  return owner_fence() or event_fence()
end
-- Deletes the ARGV[at] field names that follow ARGV[at]; returns the field/value pairs after them.
local function clear_then_pairs(at)
  local n = tonumber(ARGV[at])
  if n > 0 then
    local clear = {}
    for i = at + 1, at + n do clear[#clear + 1] = ARGV[i] end
    redis.call('HDEL', KEYS[1], unpack(clear))
  end
  local kv = {}
  for i = at + 1 + n, #ARGV do kv[#kv + 1] = ARGV[i] end
  return kv
end
local function announce(results, channel, file_id, status, event_id)
  redis.call('XADD', results, 'MAXLEN', '~', '100000', '*',
             'file_id', file_id, 'status', status, 'event_id', event_id)
  redis.call('PUBLISH', channel,
             cjson.encode({file_id = file_id, status = status, event_id = event_id}))
end
)lua";

constexpr const char* k_start = R"lua(
local v = fence()
if v then return v end
local args = {}
for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HDEL', KEYS[1], 'deleted_at') -- a newer upload brings a deleted file back
redis.call('HSET', KEYS[1], 'status', 'processing', 'event_id', ARGV[3], unpack(args))
announce(KEYS[3], ARGV[5], ARGV[4], 'processing', ARGV[3])
return 'ok'
)lua";

// A job's fast results before its final commit (thumbnails while OCR goes on): deletes the
// clear list, sets the fields; status stays processing, nothing is announced or acknowledged.
// ARGV[4]=number of fields to clear, then those names, then field/value pairs.
constexpr const char* k_progress = R"lua(
local v = fence()
if v then return v end
local args = clear_then_pairs(4)
if #args > 0 then redis.call('HSET', KEYS[1], unpack(args)) end
return 'ok'
)lua";

constexpr const char* k_commit = R"lua(
local v = fence()
if v then return v end
local args = clear_then_pairs(7)
redis.call('HDEL', KEYS[1], 'deleted_at')
redis.call('HSET', KEYS[1], 'status', ARGV[6], 'event_id', ARGV[3], unpack(args))
if KEYS[4] ~= '' and ARGV[6] == 'done' then
  redis.call('SET', KEYS[4], ARGV[4])
end
announce(KEYS[3], ARGV[5], ARGV[4], ARGV[6], ARGV[3])
redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
return 'ok'
)lua";

// The tombstone: every field but the kept ones goes; the hash index entry goes when it
// still names this file for the same bytes (pcall: a key of another type is left alone).
constexpr const char* k_delete = R"lua(
local v = fence()
if v then return v end
local keep = {content_hash = true, name = true, owner = true, storage_key = true}
local drop = {}
for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
  if not keep[f] then drop[#drop + 1] = f end
end
if #drop > 0 then redis.call('HDEL', KEYS[1], unpack(drop)) end
redis.call('HSET', KEYS[1], 'status', 'deleted', 'event_id', ARGV[3], 'deleted_at', ARGV[6])
if ARGV[7] ~= '' then redis.call('HSETNX', KEYS[1], 'storage_key', ARGV[7]) end
if KEYS[4] ~= '' and redis.call('HGET', KEYS[1], 'content_hash') == ARGV[8] and
   redis.pcall('GET', KEYS[4]) == ARGV[4] then
  redis.call('DEL', KEYS[4])
end
announce(KEYS[3], ARGV[5], ARGV[4], 'deleted', ARGV[3])
redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
return 'ok'
)lua";

// An entry without a valid file_id has no metadata to fence: only ownership is checked.
constexpr const char* k_dead = R"lua(
local v = owner_fence()
if v then return v end
if ARGV[6] == '1' then
  v = event_fence()
  if v then return v end
end
local n = tonumber(ARGV[7])
local entry = {}
for i = 8, 7 + n do entry[#entry + 1] = ARGV[i] end
redis.call('XADD', KEYS[4], '*', unpack(entry))
if ARGV[6] == '1' then
  local meta = {}
  for i = 8 + n, #ARGV do meta[#meta + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], 'status', 'failed', 'event_id', ARGV[3], unpack(meta))
  announce(KEYS[3], ARGV[5], ARGV[4], 'failed', ARGV[3])
end
redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
return 'ok'
)lua";

constexpr const char* k_renew = R"lua(
local lost = {}
for i = 4, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if #p == 1 and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'IDLE', ARGV[3], 'JUSTID')
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost
)lua";

} // namespace

const Script& start_script() {
    static const Script s(std::string(k_prelude) + k_start);
    return s;
}

const Script& progress_script() {
    static const Script s(std::string(k_prelude) + k_progress);
    return s;
}

const Script& commit_script() {
    static const Script s(std::string(k_prelude) + k_commit);
    return s;
}

const Script& delete_script() {
    static const Script s(std::string(k_prelude) + k_delete);
    return s;
}

const Script& dead_letter_script() {
    static const Script s(std::string(k_prelude) + k_dead);
    return s;
}

const Script& renew_script() {
    static const Script s(k_renew);
    return s;
}

} // namespace jobs
