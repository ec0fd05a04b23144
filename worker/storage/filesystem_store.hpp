#pragma once

#include "core/fd.hpp"

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace worker {

/// A file-level failure with its spec code (`storage_missing`, `not_regular_file`,
/// `too_large`, `storage_error`, ...). `transient` says a retry may help (I/O errors).
class FileError : public std::runtime_error {
public:
    FileError(std::string code, const std::string& message, bool transient = false)
        : std::runtime_error(message), m_code(std::move(code)), m_transient(transient) {}
    const std::string& code() const { return m_code; }
    bool transient() const { return m_transient; }

private:
    std::string m_code;
    bool m_transient;
};

/// The filesystem store. Paths are resolved by the kernel beneath the root
/// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so no key reaches outside it.
/// Thread-safe: it only holds the root's descriptor.
class Storage {
public:
    /// Opens (and with `create`, first makes) the root folder; throws FileError.
    explicit Storage(const std::filesystem::path& root, bool create = true);

    struct Input {
        core::Fd fd;
        std::uint64_t size = 0;
    };

    /// Opens `key` read-only: only a regular file inside the root, no symlink anywhere on the
    /// path, at most `max_bytes` (checked before any byte is read). Throws FileError.
    Input open_input(const std::string& key, std::uint64_t max_bytes) const;

    /// Writes `bytes` to `key` atomically (temporary file in the same folder, then rename),
    /// making parent folders. Throws FileError (storage_error).
    void write_atomic(const std::string& key, std::string_view bytes) const;

    /// Copies everything readable from `fd` to `key` atomically (copy_file_range, streaming).
    void import_fd(const std::string& key, int fd) const;

    /// Reads a whole (small) file of the store, or throws FileError.
    std::string read_all(const std::string& key, std::uint64_t max_bytes) const;

    /// Moves the file at the absolute `from` (on the same filesystem) to `key`, replacing it.
    void adopt(const std::filesystem::path& from, const std::string& key) const;

    const std::filesystem::path& root() const { return m_root; }
    int root_fd() const { return m_root_fd.get(); }

private:
    core::Fd open_parent(const std::string& key, std::string& leaf) const;

    std::filesystem::path m_root;
    core::Fd m_root_fd;
};

} // namespace worker
