#pragma once

#include "jobs/redis.hpp"

#include <string>
#include <vector>

namespace jobs {

/// One consumer group of a stream as XINFO GROUPS reports it.
struct GroupInfo {
    std::string name;
    long long pending = 0;         ///< delivered and not acknowledged
    long long lag = 0;             ///< entries not yet delivered (0 when Redis cannot tell)
    std::string last_delivered_id; ///< "0-0" before the first delivery
};

/// The groups of `stream` (XINFO GROUPS); empty when the stream does not exist. Throws
/// RedisIoError when Redis cannot be reached.
std::vector<GroupInfo> read_groups(Redis& redis, const std::string& stream);

} // namespace jobs
