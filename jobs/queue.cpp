#include "jobs/queue.hpp"

#include <ctime>
#include <stdexcept>

namespace jobs {
namespace {

// Shared by every fenced script: stream id comparison and the ownership / supersede check.
// KEYS[1]=metadata KEYS[2]=stream; ARGV[1]=group ARGV[2]=consumer ARGV[3]=entry id.
// Returns nil when the write may go on, or the verdict string.
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
local function fence()
  local p = redis.call('XPENDING', KEYS[2], ARGV[1], ARGV[3], ARGV[3], 1)
  if #p == 0 or p[1][2] ~= ARGV[2] then return 'lost' end
  local cur = redis.call('HMGET', KEYS[1], 'event_id', 'status')
  if cur[1] then
    local c = idcmp(cur[1], ARGV[3])
    if c > 0 then
      redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
      return 'superseded'
    end
    if c == 0 and (cur[2] == 'done' or cur[2] == 'failed') then
      redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
      return 'already_final'
    end
  end
  return nil
end
local function announce(results, channel, file_id, status, event_id)
  redis.call('XADD', results, 'MAXLEN', '~', '100000', '*',
             'file_id', file_id, 'status', status, 'event_id', event_id)
  redis.call('PUBLISH', channel,
             cjson.encode({file_id = file_id, status = status, event_id = event_id}))
end
)lua";

// KEYS: metadata stream results. ARGV: group consumer entry file_id channel pairs...
constexpr const char* k_start = R"lua(
local v = fence()
if v then return v end
local args = {}
for i = 6, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], 'status', 'processing', 'event_id', ARGV[3], unpack(args))
announce(KEYS[3], ARGV[5], ARGV[4], 'processing', ARGV[3])
return 'ok'
)lua";

// KEYS: metadata stream results hashindex. ARGV: group consumer entry file_id channel
// status nclear clear... pairs...
constexpr const char* k_commit = R"lua(
local v = fence()
if v then return v end
local nclear = tonumber(ARGV[7])
if nclear > 0 then
  local clear = {}
  for i = 8, 7 + nclear do clear[#clear + 1] = ARGV[i] end
  redis.call('HDEL', KEYS[1], unpack(clear))
end
local args = {}
for i = 8 + nclear, #ARGV do args[#args + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], 'status', ARGV[6], 'event_id', ARGV[3], unpack(args))
if KEYS[4] ~= '' and ARGV[6] == 'done' then
  redis.call('SET', KEYS[4], ARGV[4])
end
announce(KEYS[3], ARGV[5], ARGV[4], ARGV[6], ARGV[3])
redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
return 'ok'
)lua";

// KEYS: metadata stream results dead. ARGV: group consumer entry file_id channel give_up
// nfields field-pairs... meta-pairs...
constexpr const char* k_dead = R"lua(
local p = redis.call('XPENDING', KEYS[2], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then return 'lost' end
if ARGV[6] == '1' then
  local cur = redis.call('HMGET', KEYS[1], 'event_id', 'status')
  if cur[1] then
    local c = idcmp(cur[1], ARGV[3])
    if c > 0 then
      redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
      return 'superseded'
    end
    if c == 0 and (cur[2] == 'done' or cur[2] == 'failed') then
      redis.call('XACK', KEYS[2], ARGV[1], ARGV[3])
      return 'already_final'
    end
  end
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

// KEYS: stream. ARGV: group consumer ids...
constexpr const char* k_renew = R"lua(
local lost = {}
for i = 3, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if #p == 1 and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
  else
    lost[#lost + 1] = ARGV[i]
  end
end
return lost
)lua";

const Script& start_script() {
    static const Script s(std::string(k_prelude) + k_start);
    return s;
}
const Script& commit_script() {
    static const Script s(std::string(k_prelude) + k_commit);
    return s;
}
const Script& dead_script() {
    static const Script s(std::string(k_prelude) + k_dead);
    return s;
}
const Script& renew_script() {
    static const Script s(k_renew);
    return s;
}

Fence to_fence(const Reply& r, const char* what) {
    if (r.is_error()) {
        throw std::runtime_error(std::string(what) + ": " + r.str);
    }
    if (r.str == "ok") return Fence::ok;
    if (r.str == "lost") return Fence::lost;
    if (r.str == "superseded") return Fence::superseded;
    if (r.str == "already_final") return Fence::already_final;
    throw std::runtime_error(std::string(what) + ": unexpected reply \"" + r.str + "\"");
}

void append_pairs(std::vector<std::string>& args, const std::vector<std::pair<std::string, std::string>>& pairs) {
    for (const auto& [k, v] : pairs) {
        args.push_back(k);
        args.push_back(v);
    }
}

std::vector<Delivery> entries_of(const Reply& list) {
    std::vector<Delivery> out;
    for (const auto& e : list.elements) {
        if (!e.is_array() || e.elements.size() < 2) continue; // a deleted entry
        Delivery d;
        d.entry_id = e.elements[0].str;
        d.fields = e.elements[1].as_pairs();
        out.push_back(std::move(d));
    }
    return out;
}

} // namespace

const char* to_string(Fence f) {
    switch (f) {
    case Fence::ok:
        return "ok";
    case Fence::lost:
        return "lost";
    case Fence::superseded:
        return "superseded";
    case Fence::already_final:
        return "already_final";
    }
    return "?";
}

Queue::Queue(QueueNames names) : m_names(std::move(names)) {}

void Queue::ensure_group(Redis& redis) const {
    Reply r = redis.command({"XGROUP", "CREATE", m_names.stream, m_names.group, "0", "MKSTREAM"});
    if (r.is_error() && !r.error_is("BUSYGROUP")) {
        throw std::runtime_error("cannot create the consumer group: " + r.str);
    }
}

std::vector<Delivery> Queue::read(Redis& redis, int count, std::chrono::milliseconds block, bool* recreated) const {
    if (recreated) *recreated = false;
    std::vector<std::string> cmd = {"XREADGROUP",
                                    "GROUP",
                                    m_names.group,
                                    m_names.consumer,
                                    "COUNT",
                                    std::to_string(count),
                                    "BLOCK",
                                    std::to_string(block.count()),
                                    "STREAMS",
                                    m_names.stream,
                                    ">"};
    Reply r = redis.command(cmd);
    if (r.error_is("NOGROUP")) {
        ensure_group(redis);
        if (recreated) *recreated = true;
        r = redis.command(cmd);
    }
    if (r.is_error()) {
        throw std::runtime_error("XREADGROUP: " + r.str);
    }
    if (!r.is_array() || r.elements.empty()) return {};
    const Reply& stream = r.elements[0];
    if (stream.elements.size() < 2) return {};
    return entries_of(stream.elements[1]);
}

std::vector<Delivery> Queue::reclaim(Redis& redis, int count, std::chrono::milliseconds min_idle,
                                     std::string* cursor) const {
    const std::string from = cursor && !cursor->empty() ? *cursor : "0-0";
    Reply r = redis.command({"XAUTOCLAIM", m_names.stream, m_names.group, m_names.consumer,
                             std::to_string(min_idle.count()), from, "COUNT", std::to_string(count)});
    if (r.error_is("NOGROUP")) {
        ensure_group(redis);
        if (cursor) *cursor = "0-0";
        return {};
    }
    if (r.is_error()) {
        throw std::runtime_error("XAUTOCLAIM: " + r.str);
    }
    if (!r.is_array() || r.elements.size() < 2) return {};
    if (cursor) *cursor = r.elements[0].str;
    std::vector<Delivery> out = entries_of(r.elements[1]);
    if (out.empty()) return out;
    // Delivery counts are only in XPENDING: one exact query per claimed entry, in one round
    // trip (a range query over the consumer's list could miss them behind older entries).
    std::vector<std::vector<std::string>> queries;
    queries.reserve(out.size());
    for (const auto& d : out) {
        queries.push_back({"XPENDING", m_names.stream, m_names.group, d.entry_id, d.entry_id, "1"});
    }
    std::vector<Reply> counts = redis.pipeline(queries);
    for (std::size_t i = 0; i < out.size() && i < counts.size(); ++i) {
        const Reply& p = counts[i];
        if (p.is_array() && !p.elements.empty() && p.elements[0].elements.size() >= 4) {
            out[i].deliveries = p.elements[0].elements[3].integer;
        }
    }
    return out;
}

std::vector<std::string> Queue::renew(Redis& redis, const std::vector<std::string>& ids) const {
    if (ids.empty()) return {};
    std::vector<std::string> args = {m_names.group, m_names.consumer};
    args.insert(args.end(), ids.begin(), ids.end());
    Reply r = renew_script().call(redis, {m_names.stream}, args);
    if (r.is_error()) {
        if (r.str.find("NOGROUP") != std::string::npos) return ids;
        throw std::runtime_error("lease renewal: " + r.str);
    }
    std::vector<std::string> lost;
    for (const auto& e : r.elements) lost.push_back(e.str);
    return lost;
}

Fence Queue::start(Redis& redis, const std::string& entry_id, const std::string& file_id,
                   const std::vector<std::pair<std::string, std::string>>& fields) const {
    std::vector<std::string> args = {m_names.group, m_names.consumer, entry_id, file_id, m_names.status_channel()};
    append_pairs(args, fields);
    Reply r =
        start_script().call(redis, {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream()}, args);
    if (r.is_error() && r.str.find("NOGROUP") != std::string::npos) return Fence::lost;
    return to_fence(r, "processing write");
}

Fence Queue::commit(Redis& redis, const std::string& entry_id, const std::string& file_id,
                    const std::vector<std::pair<std::string, std::string>>& fields,
                    const std::vector<std::string>& clear, const std::string& index_sha256) const {
    std::string status;
    std::vector<std::pair<std::string, std::string>> rest;
    rest.reserve(fields.size());
    for (const auto& kv : fields) {
        if (kv.first == "status")
            status = kv.second;
        else if (kv.first != "event_id")
            rest.push_back(kv);
    }
    if (status.empty()) throw std::logic_error("commit without a status");
    std::vector<std::string> args = {m_names.group,
                                     m_names.consumer,
                                     entry_id,
                                     file_id,
                                     m_names.status_channel(),
                                     status,
                                     std::to_string(clear.size())};
    args.insert(args.end(), clear.begin(), clear.end());
    append_pairs(args, rest);
    std::string index_key = index_sha256.empty() ? std::string() : m_names.hash_index_key(index_sha256);
    Reply r = commit_script().call(
        redis, {m_names.metadata_key(file_id), m_names.stream, m_names.results_stream(), index_key}, args);
    if (r.is_error() && r.str.find("NOGROUP") != std::string::npos) return Fence::lost;
    return to_fence(r, "final commit");
}

Fence Queue::dead_letter(Redis& redis, const Delivery& delivery, const std::string& file_id, const std::string& reason,
                         bool give_up, const std::vector<std::pair<std::string, std::string>>& fields) const {
    std::vector<std::string> entry;
    for (const auto& [k, v] : delivery.fields) {
        if (k == "dead_reason" || k == "dead_deliveries" || k == "dead_source_id") continue;
        entry.push_back(k);
        entry.push_back(v);
    }
    entry.insert(entry.end(), {"dead_reason", reason, "dead_deliveries", std::to_string(delivery.deliveries),
                               "dead_source_id", delivery.entry_id});
    std::vector<std::string> args = {m_names.group,
                                     m_names.consumer,
                                     delivery.entry_id,
                                     file_id,
                                     m_names.status_channel(),
                                     give_up ? "1" : "0",
                                     std::to_string(entry.size())};
    args.insert(args.end(), entry.begin(), entry.end());
    append_pairs(args, fields);
    std::string meta_key = file_id.empty() ? m_names.prefix + "file:" : m_names.metadata_key(file_id);
    Reply r =
        dead_script().call(redis, {meta_key, m_names.stream, m_names.results_stream(), m_names.dead_stream()}, args);
    if (r.is_error() && r.str.find("NOGROUP") != std::string::npos) return Fence::lost;
    return to_fence(r, "dead letter");
}

namespace {

// The id right after `id` ("5-3" -> "5-4"), so that MINID keeps `id`'s successors only.
std::string next_id(const std::string& id) {
    auto dash = id.find('-');
    if (dash == std::string::npos) return id;
    const std::string seq = id.substr(dash + 1);
    if (seq == "18446744073709551615") return id; // keep one entry rather than overflow
    return id.substr(0, dash + 1) + std::to_string(std::stoull(seq) + 1);
}

bool id_less(const std::string& a, const std::string& b) {
    auto split = [](const std::string& id) {
        auto dash = id.find('-');
        return std::pair<unsigned long long, unsigned long long>(
            std::stoull(id.substr(0, dash)), dash == std::string::npos ? 0 : std::stoull(id.substr(dash + 1)));
    };
    return split(a) < split(b);
}

} // namespace

long long Queue::trim(Redis& redis, long long min_length, std::chrono::milliseconds keep) const {
    Reply len = redis.command({"XLEN", m_names.stream});
    if (len.type != Reply::Type::integer || len.integer <= min_length) return 0;
    Reply groups = redis.command({"XINFO", "GROUPS", m_names.stream});
    if (!groups.is_array() || groups.elements.empty()) return 0; // nobody has read it yet
    // The lowest id any group still needs. XTRIM cannot run inside a script on Redis 7.0, so
    // this is computed first; a group created in between at id 0 would miss what is trimmed,
    // which is why the retention below keeps recent entries regardless.
    std::string floor;
    for (const auto& g : groups.elements) {
        std::string name, last_delivered;
        long long pending = 0;
        for (std::size_t i = 0; i + 1 < g.elements.size(); i += 2) {
            const std::string& k = g.elements[i].str;
            const Reply& v = g.elements[i + 1];
            if (k == "name")
                name = v.str;
            else if (k == "pending")
                pending = v.integer;
            else if (k == "last-delivered-id")
                last_delivered = v.str;
        }
        if (name.empty() || last_delivered.empty()) return 0;
        std::string needed = next_id(last_delivered);
        if (pending > 0) {
            Reply summary = redis.command({"XPENDING", m_names.stream, name});
            if (!summary.is_array() || summary.elements.size() < 2 || summary.elements[1].is_nil()) return 0;
            if (id_less(summary.elements[1].str, needed)) needed = summary.elements[1].str;
        }
        if (floor.empty() || id_less(needed, floor)) floor = needed;
    }
    Reply now = redis.command({"TIME"});
    if (!now.is_array() || now.elements.size() < 2) return 0;
    const long long now_ms = std::stoll(now.elements[0].str) * 1000 + std::stoll(now.elements[1].str) / 1000;
    const std::string retained = std::to_string(std::max(0LL, now_ms - keep.count())) + "-0";
    if (id_less(retained, floor)) floor = retained;
    Reply r = redis.command({"XTRIM", m_names.stream, "MINID", floor});
    if (r.is_error()) throw std::runtime_error("XTRIM: " + r.str);
    return r.integer;
}

std::pair<long long, long long> Queue::pending_and_lag(Redis& redis) const {
    long long pending = 0, lag = 0;
    Reply r = redis.command({"XINFO", "GROUPS", m_names.stream});
    if (!r.is_array()) return {0, 0};
    for (const auto& g : r.elements) {
        auto pairs = g.elements;
        bool ours = false;
        long long p = 0, l = 0;
        for (std::size_t i = 0; i + 1 < pairs.size(); i += 2) {
            const std::string& k = pairs[i].str;
            const Reply& v = pairs[i + 1];
            if (k == "name")
                ours = v.str == m_names.group;
            else if (k == "pending")
                p = v.integer;
            else if (k == "lag")
                l = v.type == Reply::Type::integer ? v.integer : 0;
        }
        if (ours) {
            pending = p;
            lag = l;
        }
    }
    return {pending, lag};
}

std::string utc_now_rfc3339() {
    auto now = std::chrono::system_clock::now();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[40];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    char out[48];
    std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms % 1000));
    return out;
}

} // namespace jobs
