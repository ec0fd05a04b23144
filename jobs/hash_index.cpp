#include "jobs/hash_index.hpp"

namespace jobs {

std::optional<std::string> lookup_hash_source(Redis& redis, const QueueNames& names, const std::string& sha256) {
    Reply r = checked(redis.command({"GET", names.hash_index_key(sha256)}), "GET of the hash index");
    if (r.type != Reply::Type::string || r.str.empty()) return std::nullopt;
    return r.str;
}

} // namespace jobs
