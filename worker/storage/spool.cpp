#include "worker/storage/spool.hpp"

#include "core/file_error.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace worker {

core::Fd open_spool() {
    const char* tmp = std::getenv("TMPDIR");
    for (const char* dir : {tmp, "/var/tmp", "/tmp"}) {
        if (dir == nullptr || *dir == '\0') continue;
        const int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return core::Fd(fd);
    }
    const int fd = ::memfd_create("ingestd-spool", MFD_CLOEXEC);
    if (fd < 0) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("cannot make a spool for the download: ") + std::strerror(errno), true);
    }
    return core::Fd(fd);
}

void reset_spool(int fd) {
    if (::ftruncate(fd, 0) != 0) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("cannot empty the download spool: ") + std::strerror(errno), true);
    }
}

void spool_write(int fd, const char* data, std::size_t size, std::uint64_t offset) {
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            throw core::FileError(core::ErrorCode::storage_error,
                                  std::string("cannot write the download spool: ") + std::strerror(errno), true);
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
}

} // namespace worker
