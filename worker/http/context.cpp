#include "worker/http/context.hpp"

#include "jobs/fleet_reads.hpp"
#include "worker/http/reader.hpp"

namespace worker::http {

ServerContext::ServerContext(const Config& c, Metrics& m, const std::atomic<bool>& d, RedisReader& r)
    : config(c), metrics(m), draining(d), names(queue_names(c)), store(open_store(c.storage_root, false)), reader(r) {}

bool ServerContext::ready() const {
    return !draining && metrics.redis_up && metrics.storage_up && metrics.threads_warm;
}

void ServerContext::refresh_queue_gauges(jobs::Redis& redis) {
    try {
        const jobs::QueueDepth depth = jobs::read_queue_depth(redis, names);
        metrics.stream_pending = depth.pending;
        metrics.stream_lag = depth.lag;
        metrics.dead_letters = depth.dead_letters;
    } catch (const std::exception&) {
        // The lease keeper samples the same gauges; the last values stay until Redis answers.
    }
}

void ServerContext::request_gauge_refresh() {
    if (m_refresh_queued.exchange(true)) return;
    // No deadline: nobody waits for it, and an expired refresh would leave the flag set.
    const bool queued = reader.post(std::chrono::steady_clock::time_point::max(), [this](jobs::Redis& redis) {
        m_refresh_queued = false;
        refresh_queue_gauges(redis);
    });
    if (!queued) m_refresh_queued = false;
}

} // namespace worker::http
