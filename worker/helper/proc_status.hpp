#pragma once

#include <cstdint>

#include <sys/types.h>

namespace worker {

/// A size line of /proc/<pid>/status (`key` such as "VmRSS:" or "VmData:"), in bytes; 0 when
/// the process or the line cannot be read.
std::uint64_t proc_status_bytes(pid_t pid, const char* key);

} // namespace worker
