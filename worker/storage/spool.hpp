#pragma once

#include "core/fd.hpp"

#include <cstddef>
#include <cstdint>

namespace worker {

/// A private spool for an input's bytes (core::open_spool_file): an unlinked file in TMPDIR (or /var/tmp),
/// so that a large object is on disk, not in RAM, and no other process can open it by name;
/// an anonymous memory file (memfd) when the folder cannot hold one. Throws core::FileError.
core::Fd open_spool();

/// Empties the spool (a restarted download). Throws core::FileError.
void reset_spool(int fd);

/// Writes all of `data` at `offset`. Throws core::FileError (storage_error, transient).
void spool_write(int fd, const char* data, std::size_t size, std::uint64_t offset);

} // namespace worker
