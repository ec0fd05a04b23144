#include "worker/http/reader.hpp"

#include <exception>

namespace worker::http {

RedisReader::RedisReader(jobs::RedisAddress address, std::chrono::milliseconds timeout, std::size_t max_queued)
    : m_redis(std::move(address), timeout), m_max_queued(max_queued), m_thread([this] { run(); }) {}

RedisReader::~RedisReader() {
    stop();
}

bool RedisReader::post(Clock::time_point deadline, Work work) {
    {
        std::lock_guard lock(m_mu);
        if (m_stopping || m_tasks.size() >= m_max_queued) return false;
        m_tasks.push_back(Task{deadline, std::move(work)});
    }
    m_cv.notify_one();
    return true;
}

void RedisReader::stop() {
    std::deque<Task> dropped;
    {
        std::lock_guard lock(m_mu);
        m_stopping = true;
        dropped.swap(m_tasks);
    }
    m_cv.notify_one();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id()) m_thread.join();
}

void RedisReader::run() {
    while (true) {
        Task task;
        {
            std::unique_lock lock(m_mu);
            m_cv.wait(lock, [this] { return m_stopping || !m_tasks.empty(); });
            if (m_stopping) return;
            task = std::move(m_tasks.front());
            m_tasks.pop_front();
        }
        // A read whose request was already answered would only delay the ones behind it.
        if (Clock::now() >= task.deadline) continue;
        try {
            task.work(m_redis);
        } catch (const std::exception&) {
            // Work answers its own failures; one that escapes must not end the thread.
        }
    }
}

} // namespace worker::http
