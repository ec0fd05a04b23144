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
/// whose leases the lease keeper renews. Entries wait in arrival order, each marked for the
/// fast lane or not (worker/daemon/lanes.hpp). Thread-safe.
class Slots {
public:
    using Clock = std::chrono::steady_clock;

    /// Room for `capacity` entries queued or running.
    explicit Slots(int capacity) : m_capacity(capacity) {}

    /// Slots neither queued nor running.
    int free();

    /// Waits until a slot is free or `until`; false when none is, or once closed.
    bool wait_free(Clock::time_point until);

    /// How many entries to read now, of the free slots: one for each of `threads` ordinary
    /// threads neither running nor about to take a queued entry, and, while the fast lane has
    /// nothing to do, `step` more (a look further ahead for a file it may take).
    int wanted(int threads, int step);

    /// Waits until wanted(threads, step) > 0 or `until`; false when not, or once closed.
    bool wait_wanted(Clock::time_point until, int threads, int step);

    /// Queues `d` (`fast`: the fast lane may take it), a redelivery before every entry
    /// delivered once (those read ahead); false (and nothing queued) once closed,
    /// or when the entry is already in flight here: a reclaim of this worker's own entry whose
    /// lease renewal was late.
    bool push(jobs::Delivery d, bool fast = false);

    /// Waits for the oldest entry and counts it running; nullopt once closed and empty.
    std::optional<jobs::Delivery> pop();

    /// The fast lane's pop: waits for the oldest entry marked fast.
    std::optional<jobs::Delivery> pop_fast();

    /// Of `threads` ordinary job threads, those neither running nor about to take a queued entry.
    int idle(int threads);

    /// Redeliveries queued, not yet started.
    int queued_redeliveries();

    /// True once the first read was queued (mark_first_read) and no entry marked fast is
    /// queued or running: the fast lane has nothing to do, and the ordinary threads' start-up
    /// no longer competes with it.
    bool fast_lane_clear();

    /// The dispatcher's first read is in (whatever it found).
    void mark_first_read();

    /// The job of `entry_id` (taken with pop) has ended.
    void done(const std::string& entry_id);

    /// Takes no more entries; those not yet started are dropped (they stay pending in Redis
    /// for others; dropped() names them) and every waiter wakes.
    void close();

    /// The entries close() dropped, to be handed back.
    std::vector<std::string> dropped();

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

    struct Waiting {
        jobs::Delivery delivery;
        bool fast = false;
    };
    std::optional<jobs::Delivery> take(bool fast_only);
    int wanted_locked(int threads, int step) const;

    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<Waiting> m_queue;
    std::vector<std::string> m_dropped;
    std::set<std::string> m_running_fast_ids; // taken by the fast lane
    bool m_first_read = false;                // mark_first_read was called
    std::set<std::string> m_owned;
    std::set<std::string> m_lost;
    int m_capacity;
    int m_running = 0;
    bool m_closed = false;
};

} // namespace worker
