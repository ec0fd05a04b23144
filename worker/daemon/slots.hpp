#pragma once

#include "jobs/queue.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace worker {

/// Work handed from the dispatcher to the job threads, and the set of entries in flight
/// whose leases the lease keeper renews. Thread-safe.
class Slots {
public:
    using Clock = std::chrono::steady_clock;

    /// Room for `capacity` entries queued or running.
    explicit Slots(int capacity) : m_capacity(capacity) {}

    /// Slots neither queued nor running.
    int free();

    /// Waits until a slot is free or `until`; false when none is, or once closed.
    bool wait_free(Clock::time_point until);

    /// Queues `d`; false (and nothing queued) once closed, or when the entry is already in
    /// flight here: a reclaim of this worker's own entry whose lease renewal was late.
    bool push(jobs::Delivery d);

    /// Waits for the next entry and counts it running; nullopt once closed and empty.
    std::optional<jobs::Delivery> pop();

    /// The job of `entry_id` (taken with pop) has ended.
    void done(const std::string& entry_id);

    /// Takes no more entries; those not yet started are dropped (they stay pending in Redis
    /// for others) and every waiter wakes.
    void close();

    /// Jobs running now.
    int running();

    /// Entries in flight here whose leases are still this worker's.
    std::vector<std::string> owned();

    /// Another consumer owns the entry now (or it is gone): its job must not commit.
    void mark_lost(const std::string& entry_id);

    /// True when mark_lost was called for this in-flight entry.
    bool lost(const std::string& entry_id);

private:
    int free_locked() const { return m_capacity - static_cast<int>(m_queue.size()) - m_running; }

    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<jobs::Delivery> m_queue;
    std::set<std::string> m_owned;
    std::set<std::string> m_lost;
    int m_capacity;
    int m_running = 0;
    bool m_closed = false;
};

} // namespace worker
