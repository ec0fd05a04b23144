#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace jobs {

/// A metadata hash's fields, in Redis's order.
using Fields = std::vector<std::pair<std::string, std::string>>;

/// The metadata of `file_id` (HGETALL of `<prefix>file:<file_id>`); nullopt when the hash
/// does not exist. Throws RedisIoError when Redis cannot be reached and RedisReplyError
/// when Redis refuses the read (the key holds another type).
std::optional<Fields> read_metadata(Redis& redis, const QueueNames& names, const std::string& file_id);

/// True when the metadata of `file_id` is a tombstone (`status=deleted`). Throws like
/// read_metadata.
bool is_tombstone(Redis& redis, const QueueNames& names, const std::string& file_id);

/// The value of `key` in `fields`, or "" when absent.
std::string field_value(const Fields& fields, const std::string& key);

} // namespace jobs
