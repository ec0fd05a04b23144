#pragma once

#include "worker/config/config.hpp"

#include <atomic>

namespace worker {

struct Metrics;

/// How often a worker renews its heartbeat, and how long one lives unrenewed.
inline constexpr int k_heartbeat_interval_s = 5;
inline constexpr int k_heartbeat_ttl_s = 30;

/// Keeps this worker's heartbeat in Redis (name, host, version, concurrency, jobs in flight,
/// files done, start time, last seen) every k_heartbeat_interval_s until `stop`, then removes
/// it. Runs on the calling thread with its own connection; Redis errors are counted in
/// `metrics` and retried at the next beat; never throws.
void run_heartbeat(const Config& config, Metrics& metrics, const std::atomic<bool>& stop);

} // namespace worker
