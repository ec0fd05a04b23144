#include "jobs/group_info.hpp"

namespace jobs {

std::vector<GroupInfo> read_groups(Redis& redis, const std::string& stream) {
    // A missing stream is an error reply ("ERR no such key"): no groups to report.
    Reply r = redis.command({"XINFO", "GROUPS", stream});
    std::vector<GroupInfo> groups;
    if (!r.is_array()) return groups;
    for (const auto& g : r.elements) {
        GroupInfo info;
        for (std::size_t i = 0; i + 1 < g.elements.size(); i += 2) {
            const std::string& k = g.elements[i].str;
            const Reply& v = g.elements[i + 1];
            if (k == "name") {
                info.name = v.str;
            } else if (k == "pending") {
                info.pending = v.integer;
            } else if (k == "lag") {
                // nil when Redis cannot compute it (entries deleted from the middle).
                info.lag = v.type == Reply::Type::integer ? v.integer : 0;
            } else if (k == "last-delivered-id") {
                info.last_delivered_id = v.str;
            }
        }
        groups.push_back(std::move(info));
    }
    return groups;
}

} // namespace jobs
