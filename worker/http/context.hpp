#pragma once

#include "jobs/queue.hpp"
#include "worker/config/config.hpp"
#include "worker/http/metrics.hpp"
#include "worker/storage/store.hpp"

#include <atomic>
#include <chrono>
#include <memory>

namespace jobs {
class Redis;
}

namespace worker::http {

class RedisReader;

/// How long a request may wait for its read (Redis or storage) before it gets a 503.
inline constexpr std::chrono::milliseconds k_read_budget{1000};

/// What the handlers see: the configuration, the worker's counters, its draining flag, the
/// Redis names, the store (opened once) and the reader thread. Shared by the io thread and
/// the reader thread; every member is safe to use from both.
struct ServerContext {
    /// Takes the names from `config` and opens its store (throws core::FileError when it cannot).
    ServerContext(const Config& config, Metrics& metrics, const std::atomic<bool>& draining, RedisReader& reader);

    const Config& config;
    Metrics& metrics;
    const std::atomic<bool>& draining;
    jobs::QueueNames names;
    std::unique_ptr<Store> store;
    RedisReader& reader;

    /// Connected to Redis and taking work.
    bool ready() const;

    /// Reads the group's pending and lag and the dead-letter count into the metrics; keeps
    /// the last values when Redis does not answer. Reader thread only.
    void refresh_queue_gauges(jobs::Redis& redis);

    /// Asks the reader thread to refresh the queue gauges soon, unless a refresh is already
    /// waiting; never waits.
    void request_gauge_refresh();

private:
    std::atomic<bool> m_refresh_queued{false};
};

} // namespace worker::http
