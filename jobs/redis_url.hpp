#pragma once

#include <string>

namespace jobs {

/// Where Redis is: parsed from `redis://[:password@]host[:port][/db]` or
/// `unix:///path/redis.sock[?db=N]`.
struct RedisAddress {
    std::string host = "127.0.0.1";
    int port = 6379;
    std::string unix_path; // set for unix:// URLs
    std::string username;
    std::string password;
    int db = 0;
};

/// Parses a Redis URL; throws std::invalid_argument with a readable reason that never
/// repeats the URL (it may hold a password).
RedisAddress parse_redis_url(const std::string& url);

/// `url` for messages and logs: a password in it replaced by `***` (the user name kept);
/// anything else unchanged.
std::string redacted_redis_url(const std::string& url);

} // namespace jobs
