#include "worker/storage/spool.hpp"

#include "core/file_error.hpp"
#include "core/spool.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <unistd.h>

namespace worker {

core::Fd open_spool() {
    core::Fd fd = core::open_spool_file();
    if (!fd) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("cannot make a spool for the download: ") + std::strerror(errno), true);
    }
    return fd;
}

void reset_spool(int fd) {
    if (::ftruncate(fd, 0) != 0) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("cannot empty the download spool: ") + std::strerror(errno), true);
    }
}

void spool_write(int fd, const char* data, std::size_t size, std::uint64_t offset) {
    if (!core::pwrite_all(fd, data, size, offset)) {
        throw core::FileError(core::ErrorCode::storage_error,
                              std::string("cannot write the download spool: ") + std::strerror(errno), true);
    }
}

} // namespace worker
