#include "worker/daemon/slots.hpp"

namespace worker {

int Slots::free() {
    std::lock_guard lock(m_mu);
    return free_locked();
}

bool Slots::wait_free(Clock::time_point until) {
    std::unique_lock lock(m_mu);
    return m_cv.wait_until(lock, until, [&] { return m_closed || free_locked() > 0; }) && !m_closed;
}

bool Slots::push(jobs::Delivery d) {
    {
        std::lock_guard lock(m_mu);
        if (m_closed || !m_owned.insert(d.entry_id).second) return false;
        m_queue.push_back(std::move(d));
    }
    m_cv.notify_all();
    return true;
}

std::optional<jobs::Delivery> Slots::pop() {
    std::unique_lock lock(m_mu);
    m_cv.wait(lock, [&] { return m_closed || !m_queue.empty(); });
    if (m_queue.empty()) return std::nullopt;
    jobs::Delivery d = std::move(m_queue.front());
    m_queue.pop_front();
    ++m_running;
    return d;
}

void Slots::done(const std::string& entry_id) {
    {
        std::lock_guard lock(m_mu);
        --m_running;
        m_owned.erase(entry_id);
        m_lost.erase(entry_id);
    }
    m_cv.notify_all();
}

void Slots::close() {
    {
        std::lock_guard lock(m_mu);
        m_closed = true;
        for (const auto& d : m_queue) m_owned.erase(d.entry_id);
        m_queue.clear();
    }
    m_cv.notify_all();
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
