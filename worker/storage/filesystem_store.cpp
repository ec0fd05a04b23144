#include "worker/storage/filesystem_store.hpp"

#include <cerrno>
#include <cstring>
#include <random>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>

namespace worker {
namespace {

int openat2_beneath(int dirfd, const std::string& path, int flags, mode_t mode = 0) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.mode = (flags & O_CREAT) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    for (;;) {
        long fd = ::syscall(SYS_openat2, dirfd, path.c_str(), &how, sizeof how);
        if (fd >= 0 || errno != EINTR) {
            return static_cast<int>(fd);
        }
    }
}

std::string errno_text(int err) { return std::strerror(err); }

bool io_error(int err) { return err == EIO || err == EAGAIN || err == ENOMEM || err == EMFILE || err == ENFILE || err == EINTR; }

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

} // namespace

Storage::Storage(const std::filesystem::path& root, bool create) : m_root(root) {
    std::error_code ec;
    if (create) {
        std::filesystem::create_directories(root, ec);
    }
    m_root_fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!m_root_fd) {
        throw FileError("storage_error", "cannot open the storage root " + root.string() + ": " +
                                             errno_text(errno));
    }
}

Storage::Input Storage::open_input(const std::string& key, std::uint64_t max_bytes) const {
    // O_NONBLOCK so that opening a FIFO never waits for a writer; O_NOFOLLOW for the leaf.
    int fd = openat2_beneath(m_root_fd.get(), key, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int err = errno;
        switch (err) {
        case ENOENT:
        case ENOTDIR:
            throw FileError("storage_missing", "No file is stored under this storage_key.");
        case ELOOP:
        case EXDEV:
            throw FileError("not_regular_file",
                            "The storage_key leads through a symbolic link or out of the storage root.");
        case EISDIR:
            throw FileError("not_regular_file", "The storage_key names a folder, not a file.");
        case EACCES:
        case EPERM:
            throw FileError("storage_error", "The stored file cannot be opened: " + errno_text(err) + ".");
        default:
            throw FileError("storage_error", "The stored file cannot be opened: " + errno_text(err) + ".",
                            io_error(err));
        }
    }
    core::Fd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        throw FileError("storage_error", "The stored file cannot be examined: " + errno_text(errno) + ".", true);
    }
    if (S_ISDIR(st.st_mode)) {
        throw FileError("not_regular_file", "The storage_key names a folder, not a file.");
    }
    if (!S_ISREG(st.st_mode)) {
        throw FileError("not_regular_file",
                        "The storage_key names a FIFO, device or socket, not a regular file.");
    }
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes) {
        throw FileError("too_large", "The file is " + std::to_string(size) +
                                         " bytes, over the limit of " + std::to_string(max_bytes) + " bytes.");
    }
    // Back to blocking reads now that we know it is a regular file.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return Input{std::move(owned), size};
}

core::Fd Storage::open_parent(const std::string& key, std::string& leaf) const {
    auto slash = key.rfind('/');
    leaf = slash == std::string::npos ? key : key.substr(slash + 1);
    if (slash == std::string::npos) {
        return core::Fd(::dup(m_root_fd.get()));
    }
    std::string dir = key.substr(0, slash);
    // Make each folder on the way, beneath the root, never through a symlink.
    std::size_t pos = 0;
    while (pos <= dir.size()) {
        std::size_t next = dir.find('/', pos);
        if (next == std::string::npos) next = dir.size();
        std::string prefix = dir.substr(0, next);
        core::Fd parent(openat2_beneath(m_root_fd.get(), prefix, O_PATH | O_DIRECTORY));
        if (!parent) {
            if (errno != ENOENT) {
                throw FileError("storage_error", "cannot open output folder " + prefix + ": " + errno_text(errno));
            }
            std::string up, name = prefix;
            auto s = prefix.rfind('/');
            core::Fd base;
            if (s == std::string::npos) {
                base = core::Fd(::dup(m_root_fd.get()));
            } else {
                up = prefix.substr(0, s);
                name = prefix.substr(s + 1);
                base = core::Fd(openat2_beneath(m_root_fd.get(), up, O_PATH | O_DIRECTORY));
            }
            if (!base || (::mkdirat(base.get(), name.c_str(), 0755) != 0 && errno != EEXIST)) {
                throw FileError("storage_error", "cannot make output folder " + prefix + ": " + errno_text(errno));
            }
        }
        pos = next + 1;
    }
    core::Fd parent(openat2_beneath(m_root_fd.get(), dir, O_PATH | O_DIRECTORY));
    if (!parent) {
        throw FileError("storage_error", "cannot open output folder " + dir + ": " + errno_text(errno));
    }
    return parent;
}

void Storage::write_atomic(const std::string& key, std::string_view bytes) const {
    std::string leaf;
    core::Fd parent = open_parent(key, leaf);
    std::string tmp = "." + leaf + ".tmp-" + random_suffix();
    core::Fd out(::openat(parent.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out) {
        throw FileError("storage_error", "cannot create " + key + ": " + errno_text(errno), true);
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(out.get(), bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            ::unlinkat(parent.get(), tmp.c_str(), 0);
            throw FileError("storage_error", "cannot write " + key + ": " + errno_text(err), true);
        }
        done += static_cast<std::size_t>(n);
    }
    out.reset();
    if (::renameat(parent.get(), tmp.c_str(), parent.get(), leaf.c_str()) != 0) {
        int err = errno;
        ::unlinkat(parent.get(), tmp.c_str(), 0);
        throw FileError("storage_error", "cannot rename into " + key + ": " + errno_text(err), true);
    }
}

void Storage::import_fd(const std::string& key, int in_fd) const {
    std::string leaf;
    core::Fd parent = open_parent(key, leaf);
    std::string tmp = "." + leaf + ".tmp-" + random_suffix();
    core::Fd out(::openat(parent.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out) {
        throw FileError("storage_error", "cannot create " + key + ": " + errno_text(errno), true);
    }
    loff_t in_off = 0;
    for (;;) {
        ssize_t n = ::copy_file_range(in_fd, &in_off, out.get(), nullptr, 1 << 30, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL)) {
            // Fall back to read/write.
            std::string buf(1 << 20, '\0');
            for (;;) {
                ssize_t r = ::pread(in_fd, buf.data(), buf.size(), in_off);
                if (r < 0 && errno == EINTR) continue;
                if (r < 0) throw FileError("storage_error", "cannot read input: " + errno_text(errno), true);
                if (r == 0) break;
                in_off += r;
                for (ssize_t done = 0; done < r;) {
                    ssize_t w = ::write(out.get(), buf.data() + done, static_cast<std::size_t>(r - done));
                    if (w < 0 && errno == EINTR) continue;
                    if (w < 0) throw FileError("storage_error", "cannot write " + key + ": " + errno_text(errno), true);
                    done += w;
                }
            }
            break;
        }
        if (n < 0) {
            int err = errno;
            ::unlinkat(parent.get(), tmp.c_str(), 0);
            throw FileError("storage_error", "cannot copy into " + key + ": " + errno_text(err), true);
        }
        if (n == 0) break;
    }
    out.reset();
    if (::renameat(parent.get(), tmp.c_str(), parent.get(), leaf.c_str()) != 0) {
        int err = errno;
        ::unlinkat(parent.get(), tmp.c_str(), 0);
        throw FileError("storage_error", "cannot rename into " + key + ": " + errno_text(err), true);
    }
}

std::string Storage::read_all(const std::string& key, std::uint64_t max_bytes) const {
    Input in = open_input(key, max_bytes);
    std::string data(in.size, '\0');
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t n = ::pread(in.fd.get(), data.data() + done, data.size() - done, static_cast<off_t>(done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw FileError("storage_error", "cannot read " + key, true);
        done += static_cast<std::size_t>(n);
    }
    return data;
}

void Storage::adopt(const std::filesystem::path& from, const std::string& key) const {
    std::string leaf;
    core::Fd parent = open_parent(key, leaf);
    if (::renameat(AT_FDCWD, from.c_str(), parent.get(), leaf.c_str()) != 0) {
        throw FileError("storage_error", "cannot move output into " + key + ": " + errno_text(errno), true);
    }
}

} // namespace worker
