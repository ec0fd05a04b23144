#pragma once

#include "tests/support/corpus.hpp"
#include "tests/support/redis_server.hpp"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace testsupport {

/// A Sentinel deployment on loopback: a primary (AOF on), one replica and three
/// `redis-sentinel` processes watching the primary as `m` (quorum 2, down after 1 s). The
/// constructor returns once the sentinels know the replica and each other, so that a
/// failover can happen.
class SentinelSet {
public:
    SentinelSet();
    ~SentinelSet();
    SentinelSet(const SentinelSet&) = delete;
    SentinelSet& operator=(const SentinelSet&) = delete;

    /// `redis-sentinel://127.0.0.1:A,127.0.0.1:B,127.0.0.1:C/m/0`.
    std::string url() const;
    /// The port the first sentinel that answers names as the primary's (0 when none does).
    int primary_port() const;
    int first_primary_port() const { return m_primary->port(); }
    int replica_port() const { return m_replica->port(); }
    /// SIGKILLs the first primary.
    void kill_primary() { m_primary->kill_hard(); }

private:
    TempDir m_dir;
    std::unique_ptr<RedisServer> m_primary;
    std::unique_ptr<RedisServer> m_replica;
    std::vector<std::unique_ptr<RedisServer>> m_sentinels;
};

} // namespace testsupport
