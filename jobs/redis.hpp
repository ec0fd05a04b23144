#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

/// A connection-level failure (refused, reset, timed out, protocol error). Transient: the
/// connection is dropped and the next command reconnects.
class RedisIoError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Redis answered but cannot serve the command for now (`LOADING`, `BUSY`, `OOM`,
/// `MASTERDOWN`, `TRYAGAIN`, `READONLY`, `CLUSTERDOWN`, `NOREPLICAS`). Transient like an I/O
/// error: the caller backs off and retries.
class RedisBusyError : public RedisIoError {
public:
    using RedisIoError::RedisIoError;
};

/// A reply copied out of hiredis into plain values, so that nothing outside redis.cpp
/// sees a `redisReply`.
struct Reply {
    enum class Type { nil, integer, string, status, error, array };
    Type type = Type::nil;
    long long integer = 0;
    std::string str; // string, status or error text
    std::vector<Reply> elements;

    bool is_nil() const { return type == Type::nil; }
    bool is_error() const { return type == Type::error; }
    bool is_array() const { return type == Type::array; }
    /// The error text starts with `prefix` ("NOSCRIPT", "BUSYGROUP", "LOADING", "OOM").
    bool error_is(std::string_view prefix) const;
    /// Flat array of strings as pairs (HGETALL, stream entry fields).
    std::vector<std::pair<std::string, std::string>> as_pairs() const;
};

/// One blocking hiredis connection. Not thread-safe: one per thread. Reconnects lazily
/// after an I/O error; `command` throws RedisIoError when Redis cannot be reached.
class Redis {
public:
    Redis(RedisAddress address, std::chrono::milliseconds timeout);
    ~Redis();
    Redis(const Redis&) = delete;
    Redis& operator=(const Redis&) = delete;

    /// Sends one command (arguments passed with explicit lengths) and returns its reply;
    /// error replies are returned, not thrown, except the transient ones, which throw
    /// RedisBusyError.
    Reply command(const std::vector<std::string>& args);

    /// Pipelines several commands in one round trip; replies in order. Throws RedisBusyError
    /// (after reading every reply) when one of them is a transient error.
    std::vector<Reply> pipeline(const std::vector<std::vector<std::string>>& commands);

    /// Sets the socket timeout for the following commands (a blocking XREADGROUP needs one
    /// longer than its BLOCK).
    void set_timeout(std::chrono::milliseconds timeout);

    /// Connects now if not connected; throws RedisIoError.
    void ensure_connected();

    /// Drops the connection; the next command reconnects.
    void disconnect();

    /// Commands sent since construction (round trips, a pipeline counts once).
    std::uint64_t round_trips() const { return m_round_trips; }

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
    std::uint64_t m_round_trips = 0;
};

/// A Lua script loaded once and called by SHA; reloaded after NOSCRIPT (a restarted
/// Redis forgets scripts).
class Script {
public:
    explicit Script(std::string source);
    /// EVALSHA with `keys` and `args`; falls back to SCRIPT LOAD on NOSCRIPT.
    Reply call(Redis& redis, const std::vector<std::string>& keys, const std::vector<std::string>& args) const;
    const std::string& sha() const { return m_sha; }

private:
    std::string m_source;
    std::string m_sha;
};

} // namespace jobs
