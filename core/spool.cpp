#include "core/spool.hpp"

#include <cerrno>
#include <cstdlib>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace core {

Fd open_spool_file() {
    const char* tmp = std::getenv("TMPDIR");
    for (const char* dir : {tmp, "/var/tmp", "/tmp"}) {
        if (dir == nullptr || *dir == '\0') continue;
        const int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (fd >= 0) return Fd(fd);
    }
    return Fd(::memfd_create("ingestd-spool", MFD_CLOEXEC));
}

bool pwrite_all(int fd, const char* data, std::size_t size, std::uint64_t offset) {
    while (size > 0) {
        const ssize_t n = ::pwrite(fd, data, size, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = EIO;
            return false;
        }
        data += n;
        size -= static_cast<std::size_t>(n);
        offset += static_cast<std::uint64_t>(n);
    }
    return true;
}

} // namespace core
