#pragma once

#include "jobs/queue.hpp"
#include "worker/config/config.hpp"
#include "worker/daemon/slots.hpp"
#include "worker/storage/store.hpp"

#include <atomic>

namespace worker {

struct Metrics;

/// Feeds the job threads: reclaims entries idle longer than INGEST_CLAIM_IDLE_MS (no more than
/// there are job threads) and reads new ones, never more than there are free slots (threads
/// and INGEST_LOOKAHEAD), marking those the fast lane may take (a look at each file's first
/// bytes in `store`), until `stopping`. Starts reading only
/// once a job thread is ready (`threads_ready`: the fast lane's, warmed up first). Redis failures are logged, counted
/// and retried with backoff. Runs on the calling thread (it owns its own Redis connection); never throws.
void run_dispatcher(const Config& config, const jobs::Queue& queue, const Store& store, Slots& slots, Metrics& metrics,
                    const std::atomic<bool>& stopping, const std::atomic<int>& threads_ready);

} // namespace worker
