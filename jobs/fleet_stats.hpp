#pragma once

#include "jobs/queue.hpp"
#include "jobs/redis.hpp"

#include <map>
#include <string>
#include <vector>

// Fleet-wide figures from shared data, the same from any pod: activity from the results
// stream, failures by code from counters every worker adds to.
namespace jobs {

/// Final statuses the results stream recorded in one minute.
struct MinuteActivity {
    long long start_unix = 0;
    long long done = 0;
    long long failed = 0;
};

/// The last `minutes` minutes of the results stream (entry ids are millisecond times),
/// oldest first, minutes without entries included; reads at most `max_entries`. Throws
/// RedisIoError when Redis cannot be reached.
std::vector<MinuteActivity> read_fleet_activity(Redis& redis, const QueueNames& names, int minutes,
                                                int max_entries = 100000);

/// Adds one to the group's shared counter of each of `codes` (a file's error code, a step's).
void count_failures(Redis& redis, const QueueNames& names, const std::vector<std::string>& codes);

/// The group's failures by code since the counters began.
std::map<std::string, long long> read_failures_by_code(Redis& redis, const QueueNames& names);

} // namespace jobs
