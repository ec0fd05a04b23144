#include "tests/support/memory_store.hpp"

#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

namespace testsupport {
namespace {

// A descriptor holding `bytes`, positioned at 0, like an opened regular file.
core::Fd memfd_with(const std::string& bytes) {
    core::Fd fd(::memfd_create("memory-store-input", MFD_CLOEXEC));
    if (!fd) {
        throw core::FileError(core::ErrorCode::storage_error, std::string("memfd_create: ") + std::strerror(errno),
                              true);
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw core::FileError(core::ErrorCode::storage_error, "write to a memfd failed", true);
        done += static_cast<std::size_t>(n);
    }
    if (::lseek(fd.get(), 0, SEEK_SET) != 0) {
        throw core::FileError(core::ErrorCode::storage_error, "lseek of a memfd failed", true);
    }
    return fd;
}

std::string read_from(int fd) {
    std::string bytes;
    char buf[65536];
    for (off_t at = 0;;) {
        ssize_t n = ::pread(fd, buf, sizeof buf, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw core::FileError(core::ErrorCode::storage_error, "read of an output failed", true);
        if (n == 0) return bytes;
        bytes.append(buf, static_cast<std::size_t>(n));
        at += n;
    }
}

} // namespace

void MemoryStore::put(const std::string& key, std::string bytes) {
    std::lock_guard lock(m_mu);
    m_objects[key] = std::move(bytes);
}

std::optional<std::string> MemoryStore::get(const std::string& key) const {
    std::lock_guard lock(m_mu);
    auto it = m_objects.find(key);
    if (it == m_objects.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> MemoryStore::writes() const {
    std::lock_guard lock(m_mu);
    return m_writes;
}

std::vector<std::pair<std::string, std::string>> MemoryStore::copies() const {
    std::lock_guard lock(m_mu);
    return m_copies;
}

std::vector<std::string> MemoryStore::removals() const {
    std::lock_guard lock(m_mu);
    return m_removals;
}

std::vector<std::string> MemoryStore::opened() const {
    std::lock_guard lock(m_mu);
    return m_opened;
}

void MemoryStore::clear_records() {
    std::lock_guard lock(m_mu);
    m_writes.clear();
    m_copies.clear();
    m_removals.clear();
    m_opened.clear();
}

worker::Store::Input MemoryStore::open_input(const std::string& key, std::uint64_t max_bytes) const {
    std::string bytes;
    {
        std::lock_guard lock(m_mu);
        m_opened.push_back(key);
        auto it = m_objects.find(key);
        if (it == m_objects.end()) {
            throw core::FileError(core::ErrorCode::storage_missing, "No object is stored under this storage_key.");
        }
        bytes = it->second;
    }
    if (bytes.size() > max_bytes) {
        throw core::FileError(core::ErrorCode::too_large,
                              "The object is " + std::to_string(bytes.size()) + " bytes, more than the limit.");
    }
    return Input{memfd_with(bytes), bytes.size()};
}

void MemoryStore::write(const std::string& key, std::string_view bytes) const {
    std::lock_guard lock(m_mu);
    m_objects[key] = std::string(bytes);
    m_writes.push_back(key);
}

void MemoryStore::write_from(const std::string& key, int fd) const {
    std::string bytes = read_from(fd);
    std::lock_guard lock(m_mu);
    m_objects[key] = std::move(bytes);
    m_writes.push_back(key);
}

void MemoryStore::copy(const std::string& from, const std::string& to) const {
    std::lock_guard lock(m_mu);
    auto it = m_objects.find(from);
    if (it == m_objects.end()) {
        throw core::FileError(core::ErrorCode::storage_missing, "No object is stored under the copy's source.");
    }
    m_objects[to] = it->second;
    m_copies.emplace_back(from, to);
}

void MemoryStore::remove(const std::string& key) const {
    std::lock_guard lock(m_mu);
    m_objects.erase(key);
    m_removals.push_back(key);
}

void MemoryStore::list(const std::string& prefix, const std::function<void(const std::string& key)>& visit) const {
    std::vector<std::string> keys;
    {
        std::lock_guard lock(m_mu);
        for (auto it = m_objects.lower_bound(prefix); it != m_objects.end() && it->first.starts_with(prefix); ++it) {
            keys.push_back(it->first);
        }
    }
    for (const auto& key : keys) visit(key); // outside the lock: `visit` may call back in
}

std::string MemoryStore::describe(const std::string& key) const {
    return "memory:" + key;
}

} // namespace testsupport
