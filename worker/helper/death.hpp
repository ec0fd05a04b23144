#pragma once

#include "core/error_code.hpp"

#include <cstdint>
#include <optional>
#include <string>

#include <sys/types.h>

namespace worker {

/// How a helper's process ended during a job, as the worker saw it.
struct HelperEnding {
    std::optional<int> signal;    // the signal that killed it, when one did
    std::optional<int> exit_code; // its exit status, when it exited
    std::uint64_t peak_bytes = 0; // the highest data size seen or reported for it
    bool killed_for_time = false; // the worker killed it at the job's hard deadline
    std::string invalid;          // what was wrong with what it said (the worker killed it); "": nothing
};

/// Why a helper stopped during a job: the failure of the steps it had not finished, and
/// whether it counts as a parser crash for the metrics.
struct HelperDeath {
    core::Failure failure;
    bool counted = false;
};

/// Waits up to two seconds for `pid` to exit, then SIGKILLs it and waits; returns its
/// signal or exit code (neither when it cannot be reaped) and its peak RSS in `peak_bytes`.
HelperEnding reap_helper(pid_t pid);

/// The failure a helper's ending means: an invalid message or result is `crashed`; the
/// worker's kill at the deadline and SIGXCPU are `timeout`; SIGKILL, SIGSEGV, SIGBUS or
/// SIGABRT with a peak at 80 % or more of `limit_bytes` (0: no limit), or the helper's
/// out-of-memory exit code, are `memory_limit` (of `memory_mb`); anything else is `crashed`.
/// Only `timeout` is not counted as a crash.
HelperDeath classify_death(const HelperEnding& ending, std::uint64_t limit_bytes, std::uint64_t memory_mb);

/// "SIGSEGV" for a known signal, else "signal N".
std::string signal_name(int sig);

} // namespace worker
