#pragma once

#include "jobs/queue.hpp"
#include "worker/config/config.hpp"
#include "worker/daemon/slots.hpp"

#include <atomic>

namespace worker {

struct Metrics;

/// Keeps the leases of the entries in flight: every third of INGEST_CLAIM_IDLE_MS it renews
/// them (marking in `slots` those another consumer took), samples the group's pending count,
/// lag and dead letters for the metrics, and now and then trims the stream below what every
/// group still needs. Runs on the calling thread, which parser work never blocks, until
/// `stop`; never throws.
void run_lease_keeper(const Config& config, const jobs::Queue& queue, Slots& slots, Metrics& metrics,
                      const std::atomic<bool>& stop);

} // namespace worker
