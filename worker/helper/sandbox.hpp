#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace worker::sandbox {

/// Resource limits a helper puts on itself before it parses anything.
struct Limits {
    std::uint64_t data_bytes = 0;          // RLIMIT_DATA; 0 leaves it as is (sanitizer builds)
    std::uint64_t file_bytes = 1ULL << 30; // RLIMIT_FSIZE: largest scratch file
    std::uint64_t open_files = 1024;       // RLIMIT_NOFILE
};

/// Sets RLIMIT_DATA, RLIMIT_FSIZE, RLIMIT_NOFILE and RLIMIT_CORE=0 on this process.
/// Throws std::system_error when the kernel refuses.
void apply_limits(const Limits& limits);

/// Sets RLIMIT_CPU of process `pid` (a helper) to its CPU time used so far plus `budget_s`:
/// the backstop for a parser that spins past the wall-clock kill. Returns false when it fails.
bool set_cpu_budget(int pid, int budget_s);

/// What the sandbox could apply; `landlock_abi` 0 means Landlock is unavailable.
struct Report {
    int landlock_abi = 0;
    bool landlock = false;
    bool seccomp = false;
    std::vector<std::string> warnings;
};

/// Confines the calling process for good (every thread it starts later inherits it):
/// no new privileges, capabilities dropped, Landlock (read-only system folders, read-write
/// `writable` only; TCP bind/connect denied and signals to other processes refused on
/// kernels that support it), and a seccomp filter that refuses sockets, exec, fork,
/// ptrace, mounts, namespaces, raising limits and signalling other processes. The caller
/// must be single-threaded. Throws std::runtime_error when a mandatory layer (no_new_privs,
/// seccomp) fails; a missing Landlock is a warning in the report.
Report confine(const std::filesystem::path& writable, const std::vector<std::filesystem::path>& readable);

} // namespace worker::sandbox
