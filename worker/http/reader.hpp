#pragma once

#include "jobs/redis.hpp"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace worker::http {

/// The thread that does the endpoint's Redis and storage reads, with its own connection, so
/// that the io thread never waits on them. Reads run one at a time in the order posted; a
/// read still queued when its deadline passes is dropped unrun (its request has been
/// answered 503 by then).
class RedisReader {
public:
    using Clock = std::chrono::steady_clock;
    using Work = std::function<void(jobs::Redis& redis)>;

    /// Starts the thread; commands on its connection time out after `timeout`. At most
    /// `max_queued` reads wait at a time.
    RedisReader(jobs::RedisAddress address, std::chrono::milliseconds timeout, std::size_t max_queued);
    /// Stops the thread (see stop).
    ~RedisReader();
    RedisReader(const RedisReader&) = delete;
    RedisReader& operator=(const RedisReader&) = delete;

    /// Queues `work` to run before `deadline`; false (and `work` dropped) when the queue is
    /// full or the reader stopped. Never blocks on Redis.
    bool post(Clock::time_point deadline, Work work);

    /// Stops the thread after the read in progress (at most one command timeout) and drops
    /// the queued ones. Idempotent.
    void stop();

private:
    struct Task {
        Clock::time_point deadline;
        Work work;
    };

    void run();

    jobs::Redis m_redis;
    const std::size_t m_max_queued;
    std::mutex m_mu;
    std::condition_variable m_cv;
    std::deque<Task> m_tasks;
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace worker::http
