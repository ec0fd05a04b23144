#pragma once

#include "worker/http/metrics.hpp"
#include "worker/storage/store.hpp"

#include <atomic>

namespace worker {

/// Asks the store every few seconds whether it answers and keeps Metrics::storage_up (and so
/// /readyz) in step: an unreachable object store leaves the worker running and not ready.
/// Returns when `stop` is set.
void run_storage_watch(const Store& store, Metrics& metrics, const std::atomic<bool>& stop);

} // namespace worker
