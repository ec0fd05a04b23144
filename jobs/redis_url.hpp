#pragma once

#include <string>
#include <vector>

namespace jobs {

/// TLS settings of a `rediss://` address: the server's certificate is verified against
/// `ca_file` (the system's CAs when empty) and the host name; `cert_file`/`key_file` are a
/// client certificate, both or neither.
struct RedisTls {
    bool enabled = false;
    std::string ca_file;
    std::string cert_file;
    std::string key_file;
};

/// One sentinel of a `redis-sentinel://` address.
struct RedisEndpoint {
    std::string host;
    int port = 26379;
};

/// Where Redis is: parsed from `redis://[:password@]host[:port][/db]`,
/// `rediss://…` (TLS), `redis-sentinel://host:port[,host:port…]/MASTER_NAME[/db]` or
/// `unix:///path/redis.sock[?db=N]`.
struct RedisAddress {
    std::string host = "127.0.0.1";
    int port = 6379;
    std::string unix_path; // set for unix:// URLs
    std::string username;
    std::string password;
    int db = 0;
    RedisTls tls;                         // tls.enabled for rediss:// URLs
    std::vector<RedisEndpoint> sentinels; // set for redis-sentinel:// URLs: host/port are then
    std::string master_name;              // the primary the sentinels last named
};

/// Parses a Redis URL; throws std::invalid_argument with a readable reason that never
/// repeats the URL (it may hold a password).
RedisAddress parse_redis_url(const std::string& url);

/// `url` for messages and logs: a password in it replaced by `***` (the user name kept);
/// anything else unchanged.
std::string redacted_redis_url(const std::string& url);

} // namespace jobs
