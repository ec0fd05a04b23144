#pragma once

#include "core/fd.hpp"

#include <string>

#include <sys/types.h>

namespace worker {

/// Reads what helper `pid` writes to its stdout and stderr (the read end of their pipe) on a
/// thread of its own until the helper closes it, and logs each line as the helper's: a
/// `helper output` warning with `helper_pid` and `line` fields, never as a worker line of its
/// own. Lines are cut at 512 bytes with control characters escaped, and at most 20 a second
/// (bursts of 50) are logged; the number dropped is logged when logging resumes.
void pump_helper_output(core::Fd read_end, pid_t pid);

/// `raw` as one printable log value: control bytes as \xNN, at most 512 bytes (then "...").
std::string printable_line(const std::string& raw);

} // namespace worker
