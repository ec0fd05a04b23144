// The group, reads, reclaims, leases and counts of jobs::Queue (the fenced writes, dead
// letters and trimming are in files of their own).
#include "jobs/queue.hpp"

#include "jobs/fenced_scripts.hpp"
#include "jobs/group_info.hpp"

namespace jobs {
namespace {

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

// Delivery counts are only in XPENDING: one exact query per claimed entry, in one round
// trip (a range query over the consumer's list could miss them behind older entries).
void read_delivery_counts(Redis& redis, const QueueNames& names, std::vector<Delivery>& out) {
    std::vector<std::vector<std::string>> queries;
    queries.reserve(out.size());
    for (const auto& d : out) {
        queries.push_back({"XPENDING", names.stream, names.group, d.entry_id, d.entry_id, "1"});
    }
    std::vector<Reply> counts = redis.pipeline(queries);
    for (std::size_t i = 0; i < out.size() && i < counts.size(); ++i) {
        const Reply& p = counts[i];
        if (p.is_array() && !p.elements.empty() && p.elements[0].elements.size() >= 4) {
            out[i].deliveries = p.elements[0].elements[3].integer;
        }
    }
}

} // namespace

Queue::Queue(QueueNames names) : m_names(std::move(names)) {}

void Queue::ensure_group(Redis& redis) const {
    Reply r = redis.command({"XGROUP", "CREATE", m_names.stream, m_names.group, "0", "MKSTREAM"});
    if (!r.error_is("BUSYGROUP")) checked(r, "cannot create the consumer group");
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
    checked(r, "XREADGROUP");
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
    checked(r, "XAUTOCLAIM");
    if (!r.is_array() || r.elements.size() < 2) return {};
    if (cursor) *cursor = r.elements[0].str;
    std::vector<Delivery> out = entries_of(r.elements[1]);
    if (!out.empty()) read_delivery_counts(redis, m_names, out);
    return out;
}

std::vector<std::string> Queue::renew(Redis& redis, const std::vector<std::string>& ids) const {
    return set_idle(redis, ids, std::chrono::milliseconds(0));
}

std::vector<std::string> Queue::release(Redis& redis, const std::vector<std::string>& ids) const {
    // Idle for a year: past any reclaimer's INGEST_CLAIM_IDLE_MS.
    return set_idle(redis, ids, std::chrono::hours(24 * 365));
}

std::vector<std::string> Queue::set_idle(Redis& redis, const std::vector<std::string>& ids,
                                         std::chrono::milliseconds idle) const {
    if (ids.empty()) return {};
    std::vector<std::string> args = {m_names.group, m_names.consumer, std::to_string(idle.count())};
    args.insert(args.end(), ids.begin(), ids.end());
    Reply r = renew_script().call(redis, {m_names.stream}, args);
    if (r.error_is("NOGROUP")) return ids; // the group is gone, and every lease with it
    checked(r, "lease renewal");
    std::vector<std::string> lost;
    for (const auto& e : r.elements) lost.push_back(e.str);
    return lost;
}

std::pair<long long, long long> Queue::pending_and_lag(Redis& redis) const {
    for (const GroupInfo& g : read_groups(redis, m_names.stream)) {
        if (g.name == m_names.group) return {g.pending, g.lag};
    }
    return {0, 0};
}

long long Queue::dead_letter_count(Redis& redis) const {
    Reply r = checked(redis.command({"XLEN", m_names.dead_stream()}), "XLEN of the dead-letter stream");
    return r.type == Reply::Type::integer ? r.integer : 0;
}

} // namespace jobs
