#pragma once

#include "worker/config/config.hpp"
#include "worker/daemon/slots.hpp"

#include <atomic>
#include <memory>

namespace worker {

struct Metrics;

/// The daemon's main thread: the HTTP endpoint and the signals that drain the worker.
/// Not thread-safe: constructed, run and destroyed on one thread.
class Drain {
public:
    /// Binds the HTTP endpoint unless INGEST_HTTP_ADDR is off (a failure to bind is logged
    /// and the worker goes on without it).
    Drain(const Config& config, Metrics& metrics, Slots& slots, std::atomic<bool>& stopping);
    ~Drain();
    Drain(const Drain&) = delete;
    Drain& operator=(const Drain&) = delete;

    /// Serves HTTP and waits for SIGTERM/SIGINT. The first signal drains: sets `stopping`
    /// and the draining gauge, closes `slots`, and returns once no job runs or
    /// INGEST_SHUTDOWN_GRACE_S has passed. A second signal exits the process at once (code 1).
    void run();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace worker
