#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"

#include <optional>
#include <string>
#include <vector>

namespace jobs {

/// How much work waits in the queue, as the group and the dead-letter stream report it.
struct QueueDepth {
    long long pending = 0;      ///< delivered to the group and not acknowledged
    long long lag = 0;          ///< in the stream and not yet delivered to the group
    long long dead_letters = 0; ///< entries of the dead-letter stream
};

/// Reads the group's pending count and lag and the dead-letter stream's length. Throws
/// RedisIoError when Redis cannot be reached, std::runtime_error on an unexpected reply.
QueueDepth read_queue_depth(Redis& redis, const QueueNames& names);

/// A file whose status changed lately, with the metadata fields a listing shows; a field
/// the metadata does not hold is nullopt.
struct RecentFile {
    std::string file_id;
    std::optional<std::string> status;
    std::optional<std::string> name;
    std::optional<std::string> content_type;
    std::optional<std::string> size_bytes;
    std::optional<std::string> finished_at;
    std::optional<std::string> error_code;
    std::optional<std::string> error;
    std::optional<std::string> event_id;
    bool has_thumbnail = false; ///< the smallest thumbnail's key is recorded
};

/// Reads the files whose status changed last, newest first, one row per file: at most
/// `limit` files, found among the last `scan` entries of the results stream; files whose
/// metadata expired or was deleted are left out. Throws RedisIoError when Redis cannot be
/// reached or refuses the read.
std::vector<RecentFile> read_recent_files(Redis& redis, const QueueNames& names, int limit, int scan);

} // namespace jobs
