#pragma once

#include "worker/storage/store.hpp"

#include <filesystem>

namespace worker {

/// The filesystem store. Paths are resolved by the kernel beneath the root
/// (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), so no key reaches outside it, and
/// only regular files are read. Outputs are written through AtomicFile. Thread-safe: it only
/// holds the root's descriptor.
class FilesystemStore final : public Store {
public:
    /// Opens (and with `create`, first makes) the root folder; throws core::FileError.
    explicit FilesystemStore(const std::filesystem::path& root, bool create = true);

    Input open_input(const std::string& key, std::uint64_t max_bytes) const override;
    void write(const std::string& key, std::string_view bytes) const override;
    void write_from(const std::string& key, int fd) const override;
    void copy(const std::string& from, const std::string& to) const override;
    void remove(const std::string& key) const override;
    std::optional<std::chrono::system_clock::time_point> modified(const std::string& key) const override;
    void list(const std::string& prefix, const std::function<void(const std::string& key)>& visit) const override;
    std::string describe(const std::string& key) const override;

    const std::filesystem::path& root() const { return m_root; }

private:
    core::Fd open_parent(const std::string& key, std::string& leaf) const;
    void list_folder(int dir_fd, const std::string& prefix, const std::function<void(const std::string&)>& visit) const;

    std::filesystem::path m_root;
    core::Fd m_root_fd;
};

} // namespace worker
