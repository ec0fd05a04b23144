#include "worker/daemon/dispatcher.hpp"

#include "core/backoff.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/lanes.hpp"
#include "worker/daemon/pacing.hpp"
#include "worker/http/metrics.hpp"

#include <algorithm>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Entries read at a time beyond what the threads can start, looking for the fast lane's work.
constexpr int k_lookahead_step = 4;

// The longest a read blocks in XREADGROUP; the socket timeout is longer still.
constexpr milliseconds k_block{1000};

class Dispatcher {
public:
    Dispatcher(const Config& config, const jobs::Queue& queue, const Store& store, Slots& slots, Metrics& metrics,
               const std::atomic<bool>& stopping)
        : m_config(config), m_queue(queue), m_store(store), m_slots(slots), m_metrics(metrics), m_stopping(stopping),
          m_redis(redis_address(config), k_block + milliseconds(5000)), m_claim_idle(config.claim_idle_ms) {}

    void run() {
        while (!m_stopping) {
            if (!m_slots.wait_wanted(Clock::now() + milliseconds(200), m_config.concurrency, step())) continue;
            try {
                dispatch_once();
            } catch (const jobs::RedisIoError& e) {
                ++m_metrics.redis_errors;
                m_metrics.redis_up = false;
                m_group_ready = false;
                auto wait = m_backoff.next();
                log::warn("Redis unavailable, retrying",
                          {{"error", e.what()}, {"retry_in_ms", std::to_string(wait.count())}});
                sleep_unless(m_stopping, wait);
            } catch (const jobs::RedisReplyError& e) {
                // Redis refused the read itself (say, the stream key holds another type):
                // retrying slowly lets an operator repair it without a restart.
                back_off("Redis refused the stream read", e.what());
            } catch (const std::exception& e) {
                back_off("stream read failed", e.what());
            }
        }
    }

private:
    // How far past the threads to read while the fast lane is idle (no lanes: not at all).
    int step() const { return m_config.lookahead > 0 ? k_lookahead_step : 0; }

    void back_off(const char* message, const std::string& error) {
        ++m_metrics.redis_errors;
        auto wait = m_backoff.next();
        log::error(message, {{"error", error}, {"retry_in_ms", std::to_string(wait.count())}});
        sleep_unless(m_stopping, wait);
    }

    void dispatch_once() {
        if (!m_group_ready) {
            m_queue.ensure_group(m_redis);
            m_group_ready = true;
            log::info("consumer group ready", {{"stream", m_config.stream}, {"group", m_config.group}});
        }
        // What the threads can start now; while the fast lane is idle, a few more, to find a
        // file it may take behind long ones (at most INGEST_LOOKAHEAD held unstarted).
        const int free = m_slots.wanted(m_config.concurrency, step());
        if (free <= 0) return;
        std::vector<jobs::Delivery> got;
        // Reclaimed entries are run, not held ahead (queued first, no more than there are
        // threads): a delivery that waits here unstarted and is lost with this worker would
        // count against INGEST_MAX_DELIVERIES for nothing.
        const int reclaimable = std::min(free, m_config.concurrency + 1 - m_slots.queued_redeliveries());
        if (Clock::now() >= m_next_reclaim && reclaimable > 0) got = reclaim(reclaimable);
        if (got.empty()) got = read(free);
        m_metrics.redis_up = true;
        m_backoff.reset();
        for (auto& d : got) {
            const std::string id = d.entry_id;
            const bool fast = m_config.lookahead > 0 && fast_lane_entry(m_store, m_config, d);
            if (!m_slots.push(std::move(d), fast)) {
                log::debug("entry not queued (in flight here already, or draining)", {{"event_id", id}});
            }
        }
        if (!m_first_read_done) {
            m_first_read_done = true;
            m_slots.mark_first_read();
        }
    }

    std::vector<jobs::Delivery> reclaim(int free) {
        std::vector<jobs::Delivery> got = m_queue.reclaim(m_redis, free, m_claim_idle, &m_reclaim_cursor);
        // A pass that stopped midway goes on at once; a full pass waits for the timer.
        m_next_reclaim = m_reclaim_cursor != "0-0"
                             ? Clock::now()
                             : Clock::now() + jittered(std::max(m_claim_idle / 2, milliseconds(200)));
        for (const auto& d : got) {
            log::info("reclaimed an idle entry",
                      {{"event_id", d.entry_id}, {"deliveries", std::to_string(d.deliveries)}});
        }
        return got;
    }

    // Blocks no longer than until the next reclaim is due.
    std::vector<jobs::Delivery> read(int free) {
        auto until_reclaim = std::chrono::duration_cast<milliseconds>(m_next_reclaim - Clock::now());
        // The first read does not wait: the job threads' start-up waits for what it finds.
        auto wait = m_first_read_done ? std::clamp(until_reclaim, milliseconds(1), k_block) : milliseconds(1);
        bool recreated = false;
        std::vector<jobs::Delivery> got = m_queue.read(m_redis, free, wait, &recreated);
        if (recreated) {
            log::warn("consumer group had vanished and was recreated",
                      {{"stream", m_config.stream}, {"group", m_config.group}});
        }
        return got;
    }

    const Config& m_config;
    const jobs::Queue& m_queue;
    const Store& m_store;
    Slots& m_slots;
    Metrics& m_metrics;
    const std::atomic<bool>& m_stopping;
    jobs::Redis m_redis;
    const milliseconds m_claim_idle;
    core::Backoff m_backoff{milliseconds(100), milliseconds(5000)};
    Clock::time_point m_next_reclaim = Clock::now();
    std::string m_reclaim_cursor = "0-0";
    bool m_group_ready = false;
    bool m_first_read_done = false;
};

} // namespace

void run_dispatcher(const Config& config, const jobs::Queue& queue, const Store& store, Slots& slots, Metrics& metrics,
                    const std::atomic<bool>& stopping, const std::atomic<int>& threads_ready) {
    Dispatcher dispatcher(config, queue, store, slots, metrics, stopping);
    // With the lanes, the fast lane's thread is ready first; without, every thread must be.
    const int ready_from = config.lookahead > 0 ? 1 : config.concurrency;
    while (!stopping && threads_ready < ready_from) sleep_unless(stopping, milliseconds(5));
    dispatcher.run();
}

} // namespace worker
