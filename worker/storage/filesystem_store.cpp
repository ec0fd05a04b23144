#include "worker/storage/filesystem_store.hpp"

#include "worker/storage/atomic_file.hpp"

#include <cerrno>
#include <cstring>

#include <dirent.h>
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

std::string errno_text(int err) {
    return std::strerror(err);
}

bool io_error(int err) {
    return err == EIO || err == EAGAIN || err == ENOMEM || err == EMFILE || err == ENFILE || err == EINTR;
}

} // namespace

FilesystemStore::FilesystemStore(const std::filesystem::path& root, bool create) : m_root(root) {
    std::error_code ec;
    if (create) {
        std::filesystem::create_directories(root, ec);
    }
    m_root_fd.reset(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!m_root_fd) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot open the storage root " + root.string() + ": " + errno_text(errno));
    }
}

Store::Input FilesystemStore::open_input(const std::string& key, std::uint64_t max_bytes) const {
    // O_NONBLOCK so that opening a FIFO never waits for a writer; O_NOFOLLOW for the leaf.
    int fd = openat2_beneath(m_root_fd.get(), key, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int err = errno;
        switch (err) {
        case ENOENT:
        case ENOTDIR:
            throw core::FileError(core::ErrorCode::storage_missing, "No file is stored under this storage_key.");
        case ELOOP:
        case EXDEV:
            throw core::FileError(core::ErrorCode::not_regular_file,
                                  "The storage_key leads through a symbolic link or out of the storage root.");
        case EISDIR:
            throw core::FileError(core::ErrorCode::not_regular_file, "The storage_key names a folder, not a file.");
        case EACCES:
        case EPERM:
            throw core::FileError(core::ErrorCode::storage_error,
                                  "The stored file cannot be opened: " + errno_text(err) + ".");
        default:
            throw core::FileError(core::ErrorCode::storage_error,
                                  "The stored file cannot be opened: " + errno_text(err) + ".", io_error(err));
        }
    }
    core::Fd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "The stored file cannot be examined: " + errno_text(errno) + ".", true);
    }
    if (S_ISDIR(st.st_mode)) {
        throw core::FileError(core::ErrorCode::not_regular_file, "The storage_key names a folder, not a file.");
    }
    if (!S_ISREG(st.st_mode)) {
        throw core::FileError(core::ErrorCode::not_regular_file,
                              "The storage_key names a FIFO, device or socket, not a regular file.");
    }
    auto size = static_cast<std::uint64_t>(st.st_size);
    if (size > max_bytes) {
        throw core::FileError(core::ErrorCode::too_large, "The file is " + std::to_string(size) +
                                                              " bytes, over the limit of " + std::to_string(max_bytes) +
                                                              " bytes.");
    }
    // Back to blocking reads now that we know it is a regular file.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return Input{std::move(owned), size};
}

core::Fd FilesystemStore::open_parent(const std::string& key, std::string& leaf) const {
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
                throw core::FileError(core::ErrorCode::storage_error,
                                      "cannot open output folder " + prefix + ": " + errno_text(errno));
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
                throw core::FileError(core::ErrorCode::storage_error,
                                      "cannot make output folder " + prefix + ": " + errno_text(errno));
            }
        }
        pos = next + 1;
    }
    core::Fd parent(openat2_beneath(m_root_fd.get(), dir, O_PATH | O_DIRECTORY));
    if (!parent) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot open output folder " + dir + ": " + errno_text(errno));
    }
    return parent;
}

void FilesystemStore::write(const std::string& key, std::string_view bytes) const {
    std::string leaf;
    core::Fd parent = open_parent(key, leaf);
    AtomicFile out(parent.get(), leaf, key);
    out.write(bytes);
    out.commit();
}

void FilesystemStore::write_from(const std::string& key, int fd) const {
    std::string leaf;
    core::Fd parent = open_parent(key, leaf);
    AtomicFile out(parent.get(), leaf, key);
    out.write_from(fd);
    out.commit();
}

void FilesystemStore::copy(const std::string& from, const std::string& to) const {
    Input in = open_input(from, UINT64_MAX);
    write_from(to, in.fd.get());
}

void FilesystemStore::remove(const std::string& key) const {
    const auto slash = key.rfind('/');
    core::Fd parent(slash == std::string::npos
                        ? ::dup(m_root_fd.get())
                        : openat2_beneath(m_root_fd.get(), key.substr(0, slash), O_PATH | O_DIRECTORY));
    if (!parent) {
        if (errno == ENOENT || errno == ENOTDIR) return;
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot remove " + describe(key) + ": " + errno_text(errno), io_error(errno));
    }
    const std::string leaf = slash == std::string::npos ? key : key.substr(slash + 1);
    if (::unlinkat(parent.get(), leaf.c_str(), 0) != 0 && errno != ENOENT) {
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot remove " + describe(key) + ": " + errno_text(errno), io_error(errno));
    }
}

std::optional<std::chrono::system_clock::time_point> FilesystemStore::modified(const std::string& key) const {
    const core::Fd fd(openat2_beneath(m_root_fd.get(), key, O_PATH | O_NOFOLLOW));
    struct stat st {};
    if (!fd || ::fstat(fd.get(), &st) != 0) return std::nullopt;
    const auto since_epoch = std::chrono::seconds(st.st_mtim.tv_sec) + std::chrono::nanoseconds(st.st_mtim.tv_nsec);
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(since_epoch));
}

void FilesystemStore::list_folder(int dir_fd, const std::string& prefix,
                                  const std::function<void(const std::string&)>& visit) const {
    DIR* dir = ::fdopendir(dir_fd); // owns dir_fd from here
    if (dir == nullptr) {
        ::close(dir_fd);
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot list " + describe(prefix) + ": " + errno_text(errno), true);
    }
    std::unique_ptr<DIR, int (*)(DIR*)> owner(dir, ::closedir);
    while (const dirent* e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        if (e->d_type == DT_DIR) {
            const int sub = openat2_beneath(::dirfd(dir), name, O_RDONLY | O_DIRECTORY);
            if (sub >= 0) list_folder(sub, prefix + name + "/", visit);
        } else if (e->d_type == DT_REG) {
            visit(prefix + name);
        }
    }
}

void FilesystemStore::list(const std::string& prefix, const std::function<void(const std::string&)>& visit) const {
    // Only whole folders are listed: "thumbnails/" lists that folder, "" the whole root.
    const std::string folder = prefix.empty() || prefix.back() != '/' ? prefix : prefix.substr(0, prefix.size() - 1);
    const int fd = folder.empty() ? ::openat(m_root_fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                  : openat2_beneath(m_root_fd.get(), folder, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return;
        throw core::FileError(core::ErrorCode::storage_error,
                              "cannot list " + describe(prefix) + ": " + errno_text(errno), true);
    }
    list_folder(fd, folder.empty() ? std::string() : folder + "/", visit);
}

std::string FilesystemStore::describe(const std::string& key) const {
    return (m_root / key).string();
}
} // namespace worker
