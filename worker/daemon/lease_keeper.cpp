#include "worker/daemon/lease_keeper.hpp"

#include "worker/config/log.hpp"
#include "worker/daemon/pacing.hpp"
#include "worker/http/metrics.hpp"

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Stream trimming: how often, from what length on, and how recent entries are kept whatever
// their state (so that `dead retry`, `reconcile` and a person debugging still find them).
constexpr milliseconds k_trim_interval{60000};
constexpr long long k_trim_min_length = 10000;
constexpr milliseconds k_trim_keep{3600 * 1000};

class LeaseKeeper {
public:
    LeaseKeeper(const Config& config, const jobs::Queue& queue, Slots& slots, Metrics& metrics)
        : m_config(config), m_queue(queue), m_slots(slots), m_metrics(metrics),
          m_redis(redis_address(config), std::max(claim_idle() / 3, milliseconds(1000))) {}

    void run(const std::atomic<bool>& stop) {
        while (!stop) {
            sleep_unless(stop, std::max(claim_idle() / 3, milliseconds(50)));
            if (stop) break;
            try {
                renew();
                sample();
                trim_when_due();
            } catch (const jobs::RedisReplyError& e) {
                ++m_metrics.redis_errors;
                log::warn("lease renewal refused by Redis", {{"error", e.what()}});
            } catch (const std::exception& e) {
                ++m_metrics.redis_errors;
                log::warn("lease renewal failed", {{"error", e.what()}});
            }
        }
    }

private:
    milliseconds claim_idle() const { return milliseconds(m_config.claim_idle_ms); }

    void renew() {
        for (const auto& id : m_queue.renew(m_redis, m_slots.owned())) {
            m_slots.mark_lost(id);
            log::warn("lease lost; the job will not be committed", {{"event_id", id}});
        }
    }

    void sample() {
        auto [pending, lag] = m_queue.pending_and_lag(m_redis);
        m_metrics.stream_pending = pending;
        m_metrics.stream_lag = lag;
        try {
            m_metrics.dead_letters = m_queue.dead_letter_count(m_redis);
        } catch (const jobs::RedisReplyError&) {
            // The dead-letter key holds something else: the gauge keeps its last value, and
            // trimming still runs.
        }
    }

    void trim_when_due() {
        if (Clock::now() < m_next_trim) return;
        m_next_trim = Clock::now() + jittered(k_trim_interval);
        if (long long n = m_queue.trim(m_redis, k_trim_min_length, k_trim_keep); n > 0) {
            m_metrics.stream_trimmed += n;
            log::info("stream trimmed below the oldest entry still needed",
                      {{"stream", m_config.stream}, {"trimmed", std::to_string(n)}});
        }
    }

    const Config& m_config;
    const jobs::Queue& m_queue;
    Slots& m_slots;
    Metrics& m_metrics;
    jobs::Redis m_redis;
    Clock::time_point m_next_trim = Clock::now() + jittered(k_trim_interval);
};

} // namespace

void run_lease_keeper(const Config& config, const jobs::Queue& queue, Slots& slots, Metrics& metrics,
                      const std::atomic<bool>& stop) {
    LeaseKeeper(config, queue, slots, metrics).run(stop);
}

} // namespace worker
