#include "worker/daemon/slots.hpp"

#include <algorithm>

namespace worker {

int Slots::free() {
    std::lock_guard lock(m_mu);
    return free_locked();
}

bool Slots::wait_free(Clock::time_point until) {
    std::unique_lock lock(m_mu);
    return m_cv.wait_until(lock, until, [&] { return m_closed || free_locked() > 0; }) && !m_closed;
}

int Slots::wanted_locked(int threads, int step) const {
    const int ordinary_running = m_running - static_cast<int>(m_running_fast_ids.size());
    int want = std::max(0, threads - ordinary_running - static_cast<int>(m_queue.size()));
    const bool fast_idle = m_running_fast_ids.empty() &&
                           std::none_of(m_queue.begin(), m_queue.end(), [](const Waiting& w) { return w.fast; });
    if (fast_idle) want += step;
    return std::min(want, free_locked());
}

int Slots::wanted(int threads, int step) {
    std::lock_guard lock(m_mu);
    return wanted_locked(threads, step);
}

bool Slots::wait_wanted(Clock::time_point until, int threads, int step) {
    std::unique_lock lock(m_mu);
    return m_cv.wait_until(lock, until, [&] { return m_closed || wanted_locked(threads, step) > 0; }) && !m_closed;
}

bool Slots::push(jobs::Delivery d, bool fast) {
    {
        std::lock_guard lock(m_mu);
        if (m_closed || !m_owned.insert(d.entry_id).second) return false;
        // A redelivery (its worker died, or handed it back) goes before the entries read
        // ahead: waiting here unstarted, it could be lost with this worker too, and every
        // loss counts against INGEST_MAX_DELIVERIES.
        const auto at = d.deliveries > 1 ? std::find_if(m_queue.begin(), m_queue.end(),
                                                        [](const Waiting& w) { return w.delivery.deliveries <= 1; })
                                         : m_queue.end();
        m_queue.insert(at, {std::move(d), fast});
    }
    m_cv.notify_all();
    return true;
}

std::optional<jobs::Delivery> Slots::take(bool fast_only) {
    std::unique_lock lock(m_mu);
    auto next = [&] {
        return fast_only ? std::find_if(m_queue.begin(), m_queue.end(), [](const Waiting& w) { return w.fast; })
                         : m_queue.begin();
    };
    m_cv.wait(lock, [&] { return m_closed || next() != m_queue.end(); });
    const auto it = next();
    if (it == m_queue.end()) return std::nullopt;
    jobs::Delivery d = std::move(it->delivery);
    m_queue.erase(it);
    ++m_running;
    if (fast_only) m_running_fast_ids.insert(d.entry_id);
    return d;
}

std::optional<jobs::Delivery> Slots::pop() {
    return take(false);
}

std::optional<jobs::Delivery> Slots::pop_fast() {
    return take(true);
}

int Slots::idle(int threads) {
    std::lock_guard lock(m_mu);
    const int ordinary_running = m_running - static_cast<int>(m_running_fast_ids.size());
    return std::max(0, threads - ordinary_running - static_cast<int>(m_queue.size()));
}

void Slots::done(const std::string& entry_id) {
    {
        std::lock_guard lock(m_mu);
        --m_running;
        m_running_fast_ids.erase(entry_id);
        m_owned.erase(entry_id);
        m_lost.erase(entry_id);
    }
    m_cv.notify_all();
}

void Slots::close() {
    {
        std::lock_guard lock(m_mu);
        m_closed = true;
        for (const auto& w : m_queue) {
            m_owned.erase(w.delivery.entry_id);
            m_dropped.push_back(w.delivery.entry_id);
        }
        m_queue.clear();
    }
    m_cv.notify_all();
}

int Slots::queued_redeliveries() {
    std::lock_guard lock(m_mu);
    return static_cast<int>(
        std::count_if(m_queue.begin(), m_queue.end(), [](const Waiting& w) { return w.delivery.deliveries > 1; }));
}

bool Slots::fast_lane_clear() {
    std::lock_guard lock(m_mu);
    return m_first_read && m_running_fast_ids.empty() &&
           std::none_of(m_queue.begin(), m_queue.end(), [](const Waiting& w) { return w.fast; });
}

void Slots::mark_first_read() {
    {
        std::lock_guard lock(m_mu);
        m_first_read = true;
    }
    m_cv.notify_all();
}

std::vector<std::string> Slots::dropped() {
    std::lock_guard lock(m_mu);
    return m_dropped;
}

int Slots::running() {
    std::lock_guard lock(m_mu);
    return m_running;
}

std::vector<std::string> Slots::owned() {
    std::lock_guard lock(m_mu);
    std::vector<std::string> out;
    for (const auto& id : m_owned) {
        if (!m_lost.count(id)) out.push_back(id);
    }
    return out;
}

void Slots::mark_lost(const std::string& entry_id) {
    std::lock_guard lock(m_mu);
    if (m_owned.count(entry_id)) m_lost.insert(entry_id);
}

bool Slots::lost(const std::string& entry_id) {
    std::lock_guard lock(m_mu);
    return m_lost.count(entry_id) > 0;
}

} // namespace worker
