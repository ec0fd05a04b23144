#pragma once

#include <algorithm>
#include <chrono>
#include <random>

namespace core {

/// Exponential backoff with jitter: the n-th wait (n from 0) is uniform in [limit/4, limit],
/// limit = min(cap, base*2^n), so that it never collapses to nothing. Not thread-safe.
/// `next()` returns the next wait; `reset()` starts again from `base`.
class Backoff {
public:
    Backoff(std::chrono::milliseconds base, std::chrono::milliseconds cap) : m_base(base), m_cap(cap) {}

    std::chrono::milliseconds next() {
        auto limit = std::min<long long>(m_cap.count(), m_base.count() << std::min(m_attempt, 20));
        ++m_attempt;
        thread_local std::mt19937_64 rng(std::random_device{}());
        std::uniform_int_distribution<long long> d(limit / 4, limit);
        return std::chrono::milliseconds(d(rng));
    }
    void reset() { m_attempt = 0; }
    int attempts() const { return m_attempt; }

private:
    std::chrono::milliseconds m_base, m_cap;
    int m_attempt = 0;
};

} // namespace core
