#include "worker/storage/atomic_file.hpp"

#include "core/file_error.hpp"

#include <cerrno>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <unistd.h>

namespace worker {
namespace {

std::string random_suffix() {
    thread_local std::mt19937_64 rng(std::random_device{}());
    static constexpr char k_digits[] = "0123456789abcdef";
    std::string s;
    auto v = rng();
    for (int i = 0; i < 12; ++i) {
        s.push_back(k_digits[v & 0xF]);
        v >>= 4;
    }
    return s;
}

[[noreturn]] void fail(const std::string& what, const std::string& key, int err) {
    throw core::FileError(core::ErrorCode::storage_error, "cannot " + what + " " + key + ": " + std::strerror(err),
                          true);
}

} // namespace

AtomicFile::AtomicFile(int parent, std::string leaf, std::string key)
    : m_parent(parent), m_leaf(std::move(leaf)), m_key(std::move(key)) {
    m_tmp = "." + m_leaf + std::string(k_marker) + random_suffix();
    m_fd.reset(::openat(m_parent, m_tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!m_fd) fail("create", m_key, errno);
}

AtomicFile::~AtomicFile() {
    if (!m_committed) ::unlinkat(m_parent, m_tmp.c_str(), 0);
}

void AtomicFile::write(std::string_view bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(m_fd.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write", m_key, errno);
        done += static_cast<std::size_t>(n);
    }
}

void AtomicFile::write_from(int in_fd) {
    loff_t in_off = 0;
    for (;;) {
        ssize_t n = ::copy_file_range(in_fd, &in_off, m_fd.get(), nullptr, 1 << 30, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n == 0) return;
        if (n > 0) continue;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL) fail("copy into", m_key, errno);
        break; // not on the same filesystem, or not supported: read and write
    }
    std::string buf(1 << 20, '\0');
    for (;;) {
        ssize_t r = ::pread(in_fd, buf.data(), buf.size(), in_off);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail("read the input for", m_key, errno);
        if (r == 0) return;
        in_off += r;
        write(std::string_view(buf.data(), static_cast<std::size_t>(r)));
    }
}

void AtomicFile::commit() {
    m_fd.reset();
    if (::renameat(m_parent, m_tmp.c_str(), m_parent, m_leaf.c_str()) != 0) fail("rename into", m_key, errno);
    m_committed = true;
}

} // namespace worker
