#pragma once

#include "core/fd.hpp"

#include <cstddef>
#include <cstdint>

namespace core {

/// A private scratch file: an unlinked file (O_TMPFILE) in TMPDIR, /var/tmp or /tmp, so that
/// large data is on disk, not in memory, and no other process can open it by name; an
/// anonymous memory file (memfd) when no folder can hold one. An empty Fd (errno set) when
/// neither can be made. Thread-safe.
Fd open_spool_file();

/// Writes all of `data` at `offset` of `fd`. False (errno set) when a write fails.
bool pwrite_all(int fd, const char* data, std::size_t size, std::uint64_t offset);

} // namespace core
