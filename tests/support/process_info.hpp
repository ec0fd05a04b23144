#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace testsupport {

/// User plus system CPU time of process `pid` in clock ticks (from /proc/PID/stat); 0 when
/// the process is gone.
long long cpu_ticks(pid_t pid);

/// The children of `pid` started by any of its threads (a worker's helper processes).
std::vector<pid_t> child_pids(pid_t pid);

/// A `kB` figure of /proc/PID/status (`key` such as "VmHWM:"), or -1 when absent.
long status_kib(pid_t pid, const std::string& key);

/// The highest VmHWM (peak resident memory, KiB) seen of a worker's helper processes while
/// it lives: sampled every 20 ms on a thread of its own (a sampling period, not a wait).
class HelperPeak {
public:
    explicit HelperPeak(pid_t worker);
    ~HelperPeak() { stop(); }
    HelperPeak(const HelperPeak&) = delete;
    HelperPeak& operator=(const HelperPeak&) = delete;
    /// Stops sampling; the peak in KiB.
    long stop();

private:
    std::atomic<bool> m_stop{false};
    std::atomic<long> m_peak{0};
    std::thread m_thread;
};

} // namespace testsupport
