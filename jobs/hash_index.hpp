#pragma once

#include "jobs/queue_names.hpp"
#include "jobs/redis.hpp"

#include <optional>
#include <string>

namespace jobs {

/// The file id that the content-hash index (`<prefix>hash:<sha256>`) names for `sha256`,
/// or nullopt when it names none. Throws RedisIoError when Redis cannot be reached and
/// RedisReplyError when Redis refuses the read.
std::optional<std::string> lookup_hash_source(Redis& redis, const QueueNames& names, const std::string& sha256);

} // namespace jobs
