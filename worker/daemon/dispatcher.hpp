#pragma once

#include "jobs/queue.hpp"
#include "worker/config/config.hpp"
#include "worker/daemon/slots.hpp"

#include <atomic>

namespace worker {

struct Metrics;

/// Feeds the job threads: reclaims entries idle longer than INGEST_CLAIM_IDLE_MS and reads
/// new ones, never more than there are free slots, until `stopping`. Starts reading only
/// once `threads_ready` reaches `config.concurrency` (an entry claimed before a job thread
/// can take it would sit unstarted). Redis failures are logged, counted and retried with
/// backoff. Runs on the calling thread (it owns its own Redis connection); never throws.
void run_dispatcher(const Config& config, const jobs::Queue& queue, Slots& slots, Metrics& metrics,
                    const std::atomic<bool>& stopping, const std::atomic<int>& threads_ready);

} // namespace worker
