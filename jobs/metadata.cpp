#include "jobs/metadata.hpp"

namespace jobs {

std::optional<Fields> read_metadata(Redis& redis, const QueueNames& names, const std::string& file_id) {
    Reply r = checked(redis.command({"HGETALL", names.metadata_key(file_id)}), "HGETALL");
    Fields fields = r.as_pairs();
    if (fields.empty()) return std::nullopt;
    return fields;
}

bool is_tombstone(Redis& redis, const QueueNames& names, const std::string& file_id) {
    const Reply r = redis.command({"HGET", names.metadata_key(file_id), "status"});
    return r.type == Reply::Type::string && r.str == "deleted";
}

std::string field_value(const Fields& fields, const std::string& key) {
    for (const auto& [k, v] : fields) {
        if (k == key) return v;
    }
    return {};
}

} // namespace jobs
