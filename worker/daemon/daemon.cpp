#include "worker/daemon/daemon.hpp"

#include "jobs/queue.hpp"
#include "worker/config/log.hpp"
#include "worker/daemon/dispatcher.hpp"
#include "worker/daemon/drain.hpp"
#include "worker/daemon/heartbeat.hpp"
#include "worker/daemon/job_runner.hpp"
#include "worker/daemon/lease_keeper.hpp"
#include "worker/daemon/slots.hpp"
#include "worker/daemon/storage_watch.hpp"
#include "worker/helper/pool.hpp"
#include "worker/http/metrics.hpp"
#include "worker/pipeline/pipeline.hpp"

#include <algorithm>
#include <functional>
#include <iostream>
#include <thread>

#include <unistd.h>

namespace worker {
namespace {

// What the threads of one daemon run share; they all end before it does.
struct Daemon {
    const Config& config;
    const Store& storage;
    const jobs::Queue& queue;
    Metrics& metrics;
    Slots& slots;
    std::atomic<bool>& stopping;
    // Holds the dispatcher back until a job thread can take a job: a worker that keeps dying
    // at start-up would raise its entries' delivery counts without ever reaching the
    // dead-letter check. The fast lane is ready first (its helper does not warm up, and the
    // others wait for it: wait_for_fast_lane), so that a small file queued before the worker
    // started is done within a second of it.
    std::atomic<int> threads_ready{0};
};

// The threads one job slot's share of the cores gives.
int threads_per_slot(const Config& config) {
    return std::max(1, machine_cores() / std::max(1, config.concurrency));
}

// Threads a job starting now may use for OCR'ing a long scan's pages: its share of the cores.
// The idle slots' shares it borrows while it reads, as long as they stay idle (`lending`:
// worker/helper/thread_share.hpp); without that, it takes those idle at its start.
int ocr_threads_now(const Config& config, Slots& slots, bool lending) {
    return threads_per_slot(config) * (1 + (lending ? 0 : slots.idle(config.concurrency)));
}

// Tells the helpers what the idle slots lend now: after every job's start and end.
void lend_idle_slots(Daemon& daemon, HelperPool& helpers) {
    if (ThreadShare* share = helpers.thread_share()) {
        share->set_spare(threads_per_slot(daemon.config) * daemon.slots.idle(daemon.config.concurrency));
    }
}

// The lanes (a fast lane's thread, read-ahead) run with INGEST_LOOKAHEAD above 0.
bool lanes_on(const Config& config) {
    return config.lookahead > 0;
}

int thread_count(const Config& config) {
    return config.concurrency + (lanes_on(config) ? 1 : 0);
}

// An ordinary job thread starts its helper (and warms it up, most of a second of CPU) once the
// fast lane is ready and the first read found no small file for it, or the fast lane has worked
// off those it found; after a second in any case.
void wait_for_fast_lane(Daemon& daemon) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!daemon.stopping &&
           (daemon.threads_ready == 0 || (!daemon.slots.fast_lane_clear() && std::chrono::steady_clock::now() < end))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

// One job thread: its own helper process and its own Redis connection (in its JobRunner);
// the fast lane's takes only entries marked for it (worker/daemon/lanes.hpp).
void run_job_thread(Daemon& daemon, HelperPool& helpers, bool fast_lane) {
    if (!fast_lane && lanes_on(daemon.config)) wait_for_fast_lane(daemon);
    std::shared_ptr<Helper> helper = helpers.make(!fast_lane);
    JobRunner runner(
        daemon.config, daemon.queue, daemon.storage, daemon.metrics, daemon.stopping,
        [helper, &daemon, lending = helpers.thread_share() != nullptr](
            int fd, std::uint64_t size, const std::string& hash, const JobSpec& spec, const PipelineOptions& options) {
            PipelineOptions o = options;
            o.ocr_threads = ocr_threads_now(daemon.config, daemon.slots, lending);
            return helper->analyse(fd, size, hash, spec, o);
        });
    // The fast lane's helper loads what its first small file needs when it comes (a fraction
    // of a second) instead of warming every parser before it may take one.
    if (!fast_lane) helper->warm_up();
    if (++daemon.threads_ready == thread_count(daemon.config)) daemon.metrics.threads_warm = true;
    lend_idle_slots(daemon, helpers);
    while (auto d = fast_lane ? daemon.slots.pop_fast() : daemon.slots.pop()) {
        ++daemon.metrics.in_flight;
        lend_idle_slots(daemon, helpers);
        runner.run(*d, [&slots = daemon.slots, id = d->entry_id] { return slots.lost(id); });
        --daemon.metrics.in_flight;
        daemon.slots.done(d->entry_id);
        lend_idle_slots(daemon, helpers);
    }
}

// Makes the entries still in flight claimable at once (fenced: only those still this
// worker's), instead of leaving them to the claim timeout.
void hand_back(Daemon& daemon) {
    try {
        jobs::Redis redis(redis_address(daemon.config), std::chrono::milliseconds(2000));
        std::vector<std::string> ids = daemon.slots.owned();
        for (auto& id : daemon.slots.dropped()) ids.push_back(std::move(id)); // read ahead, never started
        const std::vector<std::string> lost = daemon.queue.release(redis, ids);
        log::info("entries handed back", {{"released", std::to_string(ids.size() - lost.size())}});
    } catch (const std::exception& e) {
        log::warn(std::string("hand-back failed; the claim timeout releases the entries: ") + e.what());
    }
}

// After the drain: stops the dispatcher and the lease keeper, then waits for the job
// threads, unless some are still running past the grace.
int finish(Daemon& daemon, std::atomic<bool>& lease_stop, std::thread& dispatcher, std::thread& lease,
           std::vector<std::thread>& job_threads) {
    const int left = daemon.slots.running();
    lease_stop = true;
    dispatcher.join();
    lease.join();
    if (left > 0) {
        // Jobs still running past the grace: hand them back for another worker at once.
        log::warn("grace period over; handing back jobs in flight", {{"in_flight", std::to_string(left)}});
        hand_back(daemon);
        spdlog::default_logger()->flush();
        ::_exit(0);
    }
    for (auto& t : job_threads) t.join();
    if (!daemon.slots.dropped().empty()) hand_back(daemon); // entries read ahead, for others at once
    log::info("worker stopped");
    spdlog::default_logger()->flush();
    return 0;
}

// With TLS, one connection at start-up: a refused certificate is a configuration error
// (exit 2), while a server that cannot be reached yet is waited for as always.
bool redis_tls_accepted(const Config& config) {
    const jobs::RedisAddress address = redis_address(config);
    if (!address.tls.enabled) return true;
    try {
        jobs::Redis(address, std::chrono::milliseconds(5000)).ensure_connected();
    } catch (const jobs::RedisTlsError& e) {
        std::cerr << "ingestd worker: " << e.what()
                  << " (INGEST_REDIS_URL=" << jobs::redacted_redis_url(config.redis_url) << ", INGEST_REDIS_CA)\n";
        return false;
    } catch (const jobs::RedisIoError&) {
        // not reachable yet: the dispatcher retries and /readyz says 503 meanwhile
    }
    return true;
}

} // namespace

int run_daemon(const Config& config) {
    std::unique_ptr<Store> store;
    try {
        // The worker never makes its root: a missing folder is a typo or an unmounted
        // volume, and every job would fail on it.
        store = open_existing_store(config.storage_root);
    } catch (const core::FileError& e) {
        // A missing folder or bucket, refused credentials.
        std::cerr << "ingestd worker: " << e.what() << " (INGEST_STORAGE_ROOT)\n";
        return 2;
    }
    if (!redis_tls_accepted(config)) return 2;
    const jobs::Queue queue(queue_names(config));
    Metrics metrics;
    std::atomic<bool> stopping{false};
    Slots slots(thread_count(config) + config.lookahead); // the ordinary threads, the fast lane, read-ahead
    Daemon daemon{config, *store, queue, metrics, slots, stopping};

    pipeline_version(config.ocr_langs);

    log::info("worker starting", {{"consumer", config.consumer},
                                  {"stream", config.stream},
                                  {"group", config.group},
                                  {"concurrency", std::to_string(config.concurrency)}});

    // Parsers run in sandboxed helper processes, one per job thread.
    HelperSettings helper_settings = HelperSettings::from(config);
    helper_settings.on_crash = [&metrics] { ++metrics.parser_crashes; };
    helper_settings.on_restart = [&metrics](const std::string& reason) { metrics.helper_restart(reason); };
    HelperPool helpers(helper_settings);

    std::vector<std::thread> job_threads;
    for (int i = 0; i < thread_count(config); ++i) {
        job_threads.emplace_back(
            [&, fast_lane = i == config.concurrency] { run_job_thread(daemon, helpers, fast_lane); });
    }
    std::thread dispatcher(
        [&] { run_dispatcher(config, queue, *store, slots, metrics, stopping, daemon.threads_ready); });
    std::atomic<bool> lease_stop{false};
    std::thread lease([&] { run_lease_keeper(config, queue, slots, metrics, lease_stop); });
    std::atomic<bool> watch_stop{false};
    std::thread watch([&] { run_storage_watch(*store, metrics, watch_stop); });
    const std::unique_ptr<void, std::function<void(void*)>> stop_watch(&watch_stop, [&](void*) {
        watch_stop = true;
        watch.join();
    });

    std::atomic<bool> beat_stop{false};
    std::thread beat([&] { run_heartbeat(config, metrics, beat_stop); });
    const std::unique_ptr<void, std::function<void(void*)>> stop_beat(&beat_stop, [&](void*) {
        beat_stop = true;
        beat.join();
    });

    Drain drain(config, metrics, slots, stopping);
    drain.run();
    return finish(daemon, lease_stop, dispatcher, lease, job_threads);
}

} // namespace worker
