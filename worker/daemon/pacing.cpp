#include "worker/daemon/pacing.hpp"

#include <algorithm>
#include <random>
#include <thread>

namespace worker {

std::chrono::milliseconds jittered(std::chrono::milliseconds base) {
    thread_local std::mt19937_64 rng(std::random_device{}());
    std::uniform_real_distribution<double> d(0.75, 1.25);
    return std::chrono::milliseconds(static_cast<long long>(base.count() * d(rng)));
}

void sleep_unless(const std::atomic<bool>& flag, std::chrono::milliseconds d) {
    using Clock = std::chrono::steady_clock;
    auto end = Clock::now() + d;
    while (!flag && Clock::now() < end) {
        std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(50), end - Clock::now()));
    }
}

} // namespace worker
