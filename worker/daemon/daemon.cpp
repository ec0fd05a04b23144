#include "worker/daemon/daemon.hpp"

#include "core/backoff.hpp"
#include "extractors/sniff/ocr_langs.hpp"
#include "jobs/queue.hpp"
#include "jobs/redis.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/job_runner.hpp"
#include "worker/helper/pool.hpp"
#include "worker/http/metrics.hpp"
#include "worker/http/server.hpp"

#include <boost/asio.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include <unistd.h>

namespace worker {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Stream trimming: how often, from what length on, and how recent entries are kept whatever
// their state (so that `dead retry`, `reconcile` and a person debugging still find them).
constexpr auto k_trim_interval = std::chrono::milliseconds(60000);
constexpr long long k_trim_min_length = 10000;
constexpr auto k_trim_keep = std::chrono::milliseconds(3600 * 1000);

// Work handed from the dispatcher to the job threads, and the set of entries in flight
// whose leases the lease thread renews.
class Slots {
public:
    explicit Slots(int capacity) : m_capacity(capacity) {}

    int free() {
        std::lock_guard lock(m_mu);
        return m_capacity - static_cast<int>(m_queue.size()) - m_running;
    }
    // Waits until a slot is free or `until`.
    bool wait_free(Clock::time_point until) {
        std::unique_lock lock(m_mu);
        return m_cv.wait_until(lock, until, [&] {
            return m_closed || m_capacity - static_cast<int>(m_queue.size()) - m_running > 0;
        }) && !m_closed;
    }
    // False (and nothing queued) once closed, or when the entry is already in flight here:
    // a reclaim of this worker's own entry whose lease renewal was late.
    bool push(jobs::Delivery d) {
        {
            std::lock_guard lock(m_mu);
            if (m_closed || !m_owned.insert(d.entry_id).second) return false;
            m_queue.push_back(std::move(d));
        }
        m_cv.notify_all();
        return true;
    }
    std::optional<jobs::Delivery> pop() {
        std::unique_lock lock(m_mu);
        m_cv.wait(lock, [&] { return m_closed || !m_queue.empty(); });
        if (m_queue.empty()) return std::nullopt;
        jobs::Delivery d = std::move(m_queue.front());
        m_queue.pop_front();
        ++m_running;
        return d;
    }
    void done(const std::string& entry_id) {
        {
            std::lock_guard lock(m_mu);
            --m_running;
            m_owned.erase(entry_id);
            m_lost.erase(entry_id);
        }
        m_cv.notify_all();
    }
    // Entries not yet started are dropped (they stay pending in Redis for others).
    void close() {
        {
            std::lock_guard lock(m_mu);
            m_closed = true;
            for (const auto& d : m_queue) m_owned.erase(d.entry_id);
            m_queue.clear();
        }
        m_cv.notify_all();
    }
    int running() {
        std::lock_guard lock(m_mu);
        return m_running;
    }
    std::vector<std::string> owned() {
        std::lock_guard lock(m_mu);
        std::vector<std::string> out;
        for (const auto& id : m_owned) {
            if (!m_lost.count(id)) out.push_back(id);
        }
        return out;
    }
    // Another consumer owns the entry now (or it is gone): its job must not commit.
    void mark_lost(const std::string& entry_id) {
        std::lock_guard lock(m_mu);
        if (m_owned.count(entry_id)) m_lost.insert(entry_id);
    }
    bool lost(const std::string& entry_id) {
        std::lock_guard lock(m_mu);
        return m_lost.count(entry_id) > 0;
    }

private:
    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<jobs::Delivery> m_queue;
    std::set<std::string> m_owned;
    std::set<std::string> m_lost;
    int m_capacity;
    int m_running = 0;
    bool m_closed = false;
};

std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
    thread_local std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> d(0.75, 1.25);
    return std::chrono::milliseconds(static_cast<long long>(base.count() * d(rng)));
}

// Sleeps up to `d`, waking early when `flag` turns true.
void sleep_unless(const std::atomic<bool>& flag, std::chrono::milliseconds d) {
    auto end = Clock::now() + d;
    while (!flag && Clock::now() < end) {
        std::this_thread::sleep_for(std::min<Clock::duration>(50ms, end - Clock::now()));
    }
}

} // namespace

int run_daemon(const Config& config) {
    const std::unique_ptr<Store> store = open_store(config.storage_root, true);
    const Store& storage = *store;
    const jobs::Queue queue(queue_names(config));
    const jobs::RedisAddress address = jobs::parse_redis_url(config.redis_url);
    Metrics metrics;
    std::atomic<bool> stopping{false};
    Slots slots(config.concurrency);
    const auto claim_idle = std::chrono::milliseconds(config.claim_idle_ms);

    pipeline_version(config.ocr_langs);

    log::info("worker starting", {{"consumer", config.consumer},
                                  {"stream", config.stream},
                                  {"group", config.group},
                                  {"concurrency", std::to_string(config.concurrency)}});

    // Parsers run in sandboxed helper processes, one per job thread.
    HelperSettings helper_settings = HelperSettings::from(config);
    helper_settings.on_crash = [&metrics] { ++metrics.parser_crashes; };
    HelperPool helpers(helper_settings);

    // Job threads, each with its own Redis connection (inside its JobRunner).
    // `threads_ready` holds the dispatcher back until every one can take a job: an entry
    // claimed before then would sit unstarted, and a worker that keeps dying at start-up
    // would raise its delivery count without ever reaching the dead-letter check.
    std::atomic<int> threads_ready{0};
    std::vector<std::thread> job_threads;
    for (int i = 0; i < config.concurrency; ++i) {
        job_threads.emplace_back([&] {
            std::shared_ptr<Helper> helper = helpers.make();
            JobRunner runner(
                config, queue, storage, metrics, stopping,
                [helper](int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec,
                         const PipelineOptions& options) { return helper->analyse(fd, size, hash, spec, options); });
            helper->warm_up();
            ++threads_ready;
            while (auto d = slots.pop()) {
                ++metrics.in_flight;
                runner.run(*d, [&slots, id = d->entry_id] { return slots.lost(id); });
                --metrics.in_flight;
                slots.done(d->entry_id);
            }
        });
    }

    // Dispatcher: reads only as many entries as there are free slots; reclaims idle ones.
    std::thread dispatcher([&] {
        const auto block = 1000ms;
        jobs::Redis redis(address, block + 5000ms);
        core::Backoff backoff(100ms, 5000ms);
        auto next_reclaim = Clock::now();
        std::string reclaim_cursor = "0-0";
        bool group_ready = false;
        while (!stopping && threads_ready < config.concurrency) sleep_unless(stopping, 20ms);
        while (!stopping) {
            if (!slots.wait_free(Clock::now() + 200ms)) continue;
            try {
                if (!group_ready) {
                    queue.ensure_group(redis);
                    group_ready = true;
                    log::info("consumer group ready", {{"stream", config.stream}, {"group", config.group}});
                }
                int free = slots.free();
                if (free <= 0) continue;
                std::vector<jobs::Delivery> got;
                if (Clock::now() >= next_reclaim) {
                    got = queue.reclaim(redis, free, claim_idle, &reclaim_cursor);
                    // A pass that stopped midway goes on at once; a full pass waits for the timer.
                    next_reclaim =
                        reclaim_cursor != "0-0"
                            ? Clock::now()
                            : Clock::now() + jittered(std::max(claim_idle / 2, std::chrono::milliseconds(200)));
                    for (const auto& d : got) {
                        log::info("reclaimed an idle entry",
                                  {{"event_id", d.entry_id}, {"deliveries", std::to_string(d.deliveries)}});
                    }
                }
                if (got.empty()) {
                    auto until_reclaim =
                        std::chrono::duration_cast<std::chrono::milliseconds>(next_reclaim - Clock::now());
                    auto wait =
                        std::clamp(until_reclaim, std::chrono::milliseconds(1), std::chrono::milliseconds(block));
                    bool recreated = false;
                    got = queue.read(redis, free, wait, &recreated);
                    if (recreated) {
                        log::warn("consumer group had vanished and was recreated",
                                  {{"stream", config.stream}, {"group", config.group}});
                    }
                }
                metrics.redis_up = true;
                backoff.reset();
                for (auto& d : got) {
                    const std::string id = d.entry_id;
                    if (!slots.push(std::move(d))) {
                        log::debug("entry not queued (in flight here already, or draining)", {{"event_id", id}});
                    }
                }
            } catch (const jobs::RedisIoError& e) {
                ++metrics.redis_errors;
                metrics.redis_up = false;
                group_ready = false;
                auto wait = backoff.next();
                log::warn("Redis unavailable, retrying",
                          {{"error", e.what()}, {"retry_in_ms", std::to_string(wait.count())}});
                sleep_unless(stopping, wait);
            } catch (const std::exception& e) {
                ++metrics.redis_errors;
                auto wait = backoff.next();
                log::error(std::string("stream read failed: ") + e.what(),
                           {{"retry_in_ms", std::to_string(wait.count())}});
                sleep_unless(stopping, wait);
            }
        }
    });

    // Lease keeper: renews in-flight entries every third of the claim timeout, on a thread
    // that parser work never blocks; also samples pending/lag for metrics and now and then
    // trims the stream below what every group still needs.
    std::atomic<bool> lease_stop{false};
    std::thread lease([&] {
        jobs::Redis redis(address, std::max(claim_idle / 3, std::chrono::milliseconds(1000)));
        auto next_trim = Clock::now() + jittered(k_trim_interval);
        while (!lease_stop) {
            sleep_unless(lease_stop, std::max(claim_idle / 3, std::chrono::milliseconds(50)));
            if (lease_stop) break;
            try {
                auto owned = slots.owned();
                auto lost = queue.renew(redis, owned);
                for (const auto& id : lost) {
                    slots.mark_lost(id);
                    log::warn("lease lost; the job will not be committed", {{"event_id", id}});
                }
                auto [pending, lag] = queue.pending_and_lag(redis);
                metrics.stream_pending = pending;
                metrics.stream_lag = lag;
                jobs::Reply dead = redis.command({"XLEN", queue.names().dead_stream()});
                if (dead.type == jobs::Reply::Type::integer) metrics.dead_letters = dead.integer;
                if (Clock::now() >= next_trim) {
                    next_trim = Clock::now() + jittered(k_trim_interval);
                    if (long long n = queue.trim(redis, k_trim_min_length, k_trim_keep); n > 0) {
                        metrics.stream_trimmed += n;
                        log::info("stream trimmed below the oldest entry still needed",
                                  {{"stream", config.stream}, {"trimmed", std::to_string(n)}});
                    }
                }
            } catch (const std::exception& e) {
                ++metrics.redis_errors;
                log::warn(std::string("lease renewal failed: ") + e.what());
            }
        }
    });

    boost::asio::io_context io;
    std::unique_ptr<HttpServer> http;
    if (config.http_addr != "off") {
        try {
            http = std::make_unique<HttpServer>(io, config, metrics, stopping);
        } catch (const std::exception& e) {
            log::error(std::string("HTTP endpoint disabled: ") + e.what());
        }
    }
    boost::asio::signal_set signals(io, SIGTERM, SIGINT);
    boost::asio::steady_timer drain_timer(io);
    Clock::time_point grace_end;
    std::function<void()> check_drained = [&] {
        if (slots.running() == 0 || Clock::now() >= grace_end) {
            io.stop();
            return;
        }
        drain_timer.expires_after(50ms);
        drain_timer.async_wait([&](const boost::system::error_code&) { check_drained(); });
    };
    std::function<void(const boost::system::error_code&, int)> on_signal = [&](const boost::system::error_code& ec,
                                                                               int sig) {
        if (ec) return;
        if (stopping) {
            log::warn("second signal: exiting at once");
            spdlog::default_logger()->flush();
            ::_exit(1);
        }
        log::info("signal received: draining",
                  {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}, {"in_flight", std::to_string(slots.running())}});
        stopping = true;
        metrics.draining = true;
        slots.close();
        grace_end = Clock::now() + std::chrono::seconds(config.shutdown_grace_s);
        signals.async_wait(on_signal);
        check_drained();
    };
    signals.async_wait(on_signal);
    io.run();

    const int left = slots.running();
    lease_stop = true;
    dispatcher.join();
    lease.join();
    if (left > 0) {
        // Jobs still running past the grace: leave them pending for another worker.
        log::warn("grace period over; abandoning jobs in flight", {{"in_flight", std::to_string(left)}});
        spdlog::default_logger()->flush();
        ::_exit(0);
    }
    for (auto& t : job_threads) t.join();
    log::info("worker stopped");
    spdlog::default_logger()->flush();
    return 0;
}

} // namespace worker
