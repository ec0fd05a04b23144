#pragma once

#include <atomic>
#include <chrono>

namespace worker {

/// `base` scaled by a random factor in [0.75, 1.25], so that workers started together do
/// not act in step. Thread-safe.
std::chrono::milliseconds jittered(std::chrono::milliseconds base);

/// Sleeps up to `d`, waking within 50 ms once `flag` turns true.
void sleep_unless(const std::atomic<bool>& flag, std::chrono::milliseconds d);

} // namespace worker
