#include "worker/storage/store.hpp"

#include "worker/storage/filesystem_store.hpp"
#include "worker/storage/s3_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>

#include <unistd.h>

namespace worker {

std::string Store::read_all(const std::string& key, std::uint64_t max_bytes) const {
    Input in = open_input(key, max_bytes);
    std::string data(in.size, '\0');
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::pread(in.fd.get(), data.data() + done, data.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            throw core::FileError(core::ErrorCode::storage_error, "cannot read " + describe(key), true);
        }
        done += static_cast<std::size_t>(n);
    }
    return data;
}

Store::Peek Store::peek(const std::string& key, std::size_t bytes) const {
    Input in = open_input(key, UINT64_MAX);
    Peek p{in.size, std::string(std::min<std::uint64_t>(bytes, in.size), '\0')};
    const ssize_t n = ::pread(in.fd.get(), p.head.data(), p.head.size(), 0);
    p.head.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    return p;
}

void Store::remove_many(const std::vector<std::string>& keys) const {
    for (const auto& key : keys) remove(key);
}

std::optional<std::chrono::system_clock::time_point> Store::modified(const std::string&) const {
    return std::nullopt;
}

std::unique_ptr<Store> open_store(const std::string& root, bool create) {
    // One row per store, chosen by the root's scheme; a plain path is a folder.
    if (is_s3_root(root)) return open_s3_store(root, create);
    return std::make_unique<FilesystemStore>(root, create);
}

std::unique_ptr<Store> open_existing_store(const std::string& root) {
    if (is_s3_root(root)) return open_s3_store(root, true);
    return std::make_unique<FilesystemStore>(root, false);
}

} // namespace worker
