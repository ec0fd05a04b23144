// jobs::Queue::trim: the stream is cut below the oldest entry any group still needs.
#include "jobs/group_info.hpp"
#include "jobs/queue.hpp"

#include <algorithm>
#include <optional>

namespace jobs {
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

// The lowest id some group still needs (its oldest pending entry, or the one after its last
// delivered entry); nullopt when any group's state cannot be read, so nothing is trimmed.
std::optional<std::string> lowest_needed_id(Redis& redis, const std::string& stream,
                                            const std::vector<GroupInfo>& groups) {
    std::string floor;
    for (const GroupInfo& g : groups) {
        if (g.name.empty() || g.last_delivered_id.empty()) return std::nullopt;
        std::string needed = next_id(g.last_delivered_id);
        if (g.pending > 0) {
            Reply summary = redis.command({"XPENDING", stream, g.name});
            if (!summary.is_array() || summary.elements.size() < 2 || summary.elements[1].is_nil()) {
                return std::nullopt;
            }
            if (id_less(summary.elements[1].str, needed)) needed = summary.elements[1].str;
        }
        if (floor.empty() || id_less(needed, floor)) floor = needed;
    }
    return floor;
}

// The id below which entries are older than `keep` by the server's clock.
std::optional<std::string> retention_id(Redis& redis, std::chrono::milliseconds keep) {
    Reply now = redis.command({"TIME"});
    if (!now.is_array() || now.elements.size() < 2) return std::nullopt;
    const long long now_ms = std::stoll(now.elements[0].str) * 1000 + std::stoll(now.elements[1].str) / 1000;
    return std::to_string(std::max(0LL, now_ms - keep.count())) + "-0";
}

} // namespace

long long Queue::trim(Redis& redis, long long min_length, std::chrono::milliseconds keep) const {
    Reply len = redis.command({"XLEN", m_names.stream});
    if (len.type != Reply::Type::integer || len.integer <= min_length) return 0;
    const std::vector<GroupInfo> groups = read_groups(redis, m_names.stream);
    if (groups.empty()) return 0; // nobody has read it yet
    // XTRIM cannot run inside a script on Redis 7.0, so the floor is computed first; a group
    // created in between at id 0 would miss what is trimmed, which is why the retention
    // keeps recent entries regardless.
    std::optional<std::string> floor = lowest_needed_id(redis, m_names.stream, groups);
    if (!floor) return 0;
    std::optional<std::string> retained = retention_id(redis, keep);
    if (!retained) return 0;
    if (id_less(*retained, *floor)) floor = retained;
    Reply r = checked(redis.command({"XTRIM", m_names.stream, "MINID", *floor}), "XTRIM");
    return r.integer;
}

} // namespace jobs
