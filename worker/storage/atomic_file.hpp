#pragma once

#include "core/fd.hpp"

#include <string>
#include <string_view>

namespace worker {

/// An output file written under a temporary name in its folder and renamed over `leaf` by
/// commit(); never in the destructor, which removes an uncommitted temporary. Throws
/// core::FileError (storage_error, transient) on any I/O error. Not thread-safe.
class AtomicFile {
public:
    /// Creates the temporary in the folder `parent` (a descriptor the caller keeps open);
    /// `key` names the output in messages.
    AtomicFile(int parent, std::string leaf, std::string key);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// Appends `bytes`.
    void write(std::string_view bytes);
    /// Appends everything readable from `fd` from offset 0 (copy_file_range where it can).
    void write_from(int fd);
    /// Renames the temporary over the leaf.
    void commit();

    /// The prefix of every temporary name ("." + leaf + ".tmp-"), for garbage collection.
    static constexpr std::string_view k_marker = ".tmp-";

private:
    int m_parent;
    std::string m_leaf, m_tmp, m_key;
    core::Fd m_fd;
    bool m_committed = false;
};

} // namespace worker
