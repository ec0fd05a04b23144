#pragma once

// The connection; the address, the reply, the errors and the script each have their own
// header, included here so that one include brings the whole client.
#include "jobs/redis_error.hpp"
#include "jobs/redis_url.hpp"
#include "jobs/reply.hpp"
#include "jobs/script.hpp"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace jobs {

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

} // namespace jobs
