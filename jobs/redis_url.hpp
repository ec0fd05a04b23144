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

/// Parses a Redis URL; throws std::invalid_argument with a readable reason.
RedisAddress parse_redis_url(const std::string& url);

} // namespace jobs
