#pragma once

#include <string>
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

} // namespace testsupport
