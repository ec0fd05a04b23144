#pragma once

// Finding the primary of a `redis-sentinel://` address. Internal to jobs/.

#include "jobs/redis_url.hpp"

#include <chrono>

namespace jobs {

/// Asks the sentinels of `a`, in order, for the address of `a.master_name`
/// (`SENTINEL get-master-addr-by-name`); the first that knows it answers. Throws RedisIoError
/// naming the last failure when none does.
RedisEndpoint ask_sentinels(const RedisAddress& a, std::chrono::milliseconds timeout);

} // namespace jobs
