#include "jobs/fleet_reads.hpp"

#include "core/layout.hpp"
#include "jobs/event.hpp"

#include <array>
#include <set>
#include <stdexcept>

namespace jobs {
namespace {

// The metadata fields a RecentFile carries, in the order they are asked for with HMGET;
// the smallest thumbnail's key field is asked for after them.
struct ListedField {
    const char* name;
    std::optional<std::string> RecentFile::*member;
};
constexpr std::array<ListedField, 8> k_listed_fields{{
    {"status", &RecentFile::status},
    {"name", &RecentFile::name},
    {"content_type", &RecentFile::content_type},
    {"size_bytes", &RecentFile::size_bytes},
    {"finished_at", &RecentFile::finished_at},
    {"error_code", &RecentFile::error_code},
    {"error", &RecentFile::error},
    {"event_id", &RecentFile::event_id},
}};

// The distinct valid file ids of the newest `scan` results-stream entries, newest first.
std::vector<std::string> recent_file_ids(Redis& redis, const QueueNames& names, int limit, int scan) {
    Reply r = redis.command({"XREVRANGE", names.results_stream(), "+", "-", "COUNT", std::to_string(scan)});
    if (r.is_error()) throw RedisIoError("XREVRANGE: " + r.str);
    std::vector<std::string> ids;
    std::set<std::string> seen;
    for (const auto& entry : r.elements) {
        if (entry.elements.size() < 2) continue;
        for (const auto& [k, v] : entry.elements[1].as_pairs()) {
            if (k == "file_id" && valid_file_id(v) && seen.insert(v).second) ids.push_back(v);
        }
        if (ids.size() >= static_cast<std::size_t>(limit)) break;
    }
    return ids;
}

// One HMGET reply (values in k_listed_fields order, then the thumbnail key) as a row;
// nullopt when the metadata is gone (no status).
std::optional<RecentFile> recent_file(const std::string& file_id, const Reply& reply) {
    if (reply.elements.size() != k_listed_fields.size() + 1) return std::nullopt;
    RecentFile file;
    file.file_id = file_id;
    for (std::size_t i = 0; i < k_listed_fields.size(); ++i) {
        if (reply.elements[i].type == Reply::Type::string) file.*k_listed_fields[i].member = reply.elements[i].str;
    }
    file.has_thumbnail = reply.elements.back().type == Reply::Type::string;
    if (!file.status) return std::nullopt;
    return file;
}

} // namespace

QueueDepth read_queue_depth(Redis& redis, const QueueNames& names) {
    QueueDepth depth;
    std::tie(depth.pending, depth.lag) = Queue(names).pending_and_lag(redis);
    Reply dead = redis.command({"XLEN", names.dead_stream()});
    if (dead.type != Reply::Type::integer) throw std::runtime_error("XLEN of the dead-letter stream: " + dead.str);
    depth.dead_letters = dead.integer;
    return depth;
}

std::vector<RecentFile> read_recent_files(Redis& redis, const QueueNames& names, int limit, int scan) {
    const std::vector<std::string> ids = recent_file_ids(redis, names, limit, scan);
    std::vector<std::vector<std::string>> commands;
    for (const auto& id : ids) {
        std::vector<std::string> command = {"HMGET", names.metadata_key(id)};
        for (const auto& field : k_listed_fields) command.emplace_back(field.name);
        command.push_back(core::thumbnail_field(core::k_thumbnail_sizes.front()));
        commands.push_back(std::move(command));
    }
    const std::vector<Reply> replies = ids.empty() ? std::vector<Reply>{} : redis.pipeline(commands);
    std::vector<RecentFile> files;
    for (std::size_t i = 0; i < ids.size() && i < replies.size(); ++i) {
        if (auto file = recent_file(ids[i], replies[i])) files.push_back(std::move(*file));
    }
    return files;
}

} // namespace jobs
